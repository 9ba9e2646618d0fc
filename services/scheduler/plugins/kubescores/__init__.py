"""kube-scheduler's score plugins that Volcano's nodeorder calls and that look beyond one node:
PodTopologySpread, InterPodAffinity and ImageLocality, over the session's node table."""
