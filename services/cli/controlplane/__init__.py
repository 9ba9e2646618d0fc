"""The real control plane on this machine: kube-apiserver + etcd, controllers, kwok, Kafka."""
