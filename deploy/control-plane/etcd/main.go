// Command etcd is etcd's own entry point (etcdmain.Main), as the etcd repository's main.go is.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
