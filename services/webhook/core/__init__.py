"""The webhook service's pure core: AdmissionReview and ConversionReview in, their responses
out, with no I/O (what a rule reads from the cluster comes in as a ``ClusterView``).

kubesim calls it in-process with the reviews kube-apiserver would send over HTTPS, so the rules
exist once.
"""
