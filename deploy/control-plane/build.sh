#!/usr/bin/env bash
# Builds the real control plane Shoal is proven on, from pinned upstream sources, into
# .tools/control-plane/ (bin/ for the Go programs, kafka/libs/ for the broker's jars).
#   kube-apiserver, kube-controller-manager, kube-scheduler  kubernetes/go.mod (k8s.io/kubernetes)
#   etcd                                                     etcd/go.mod (go.etcd.io/etcd/server/v3)
#   kwok                                                     kwok/go.mod (sigs.k8s.io/kwok)
#   helm (lint, render and dry-run deploy/helm/shoal)         helm/go.mod (helm.sh/helm/v3)
#   vc-scheduler, vc-controller-manager                      volcano/go.mod (volcano.sh/volcano)
#   kueue (Kueue's manager)                                  kueue/go.mod (sigs.k8s.io/kueue)
#   Apache Kafka (KRaft)                                     kafka/pom.xml, checked by kafka/jars.sha256
# Volcano and Kueue are the peers Shoal is measured against (docs/peers.md); their CRDs, webhook
# registrations and default configurations are copied from the same pinned modules into
# volcano/ and kueue/ beside bin/.
# Idempotent: a part is rebuilt only when its pins (go.mod, go.sum, pom.xml) change. Go's module
# and build caches and Maven's repository stay at their defaults in the home folder, so a second
# clone on the same machine builds warm. Nothing here is fetched at run time.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${SHOAL_CONTROL_PLANE_DIR:-$here/../../.tools/control-plane}"
mkdir -p "$out/bin" "$out/stamps"
export GOFLAGS="-mod=readonly -trimpath" GOTOOLCHAIN=local CGO_ENABLED=0

stamp_of() { cat "$@" | sha256sum | cut -c1-16; }

fresh() {  # fresh <name> <stamp> <files...>: every file exists and the stamp matches
  local name=$1 stamp=$2; shift 2
  [[ -f "$out/stamps/$name" && "$(cat "$out/stamps/$name")" == "$stamp" ]] || return 1
  for f in "$@"; do [[ -e "$f" ]] || return 1; done
}

go_part() {  # go_part <dir> <ldflags> <package>[=<binary>]...: bin/<binary>, or the package's base name
  local dir=$1 ldflags=$2; shift 2
  local stamp; stamp=$( (cat "$here/$dir"/go.mod "$here/$dir"/go.sum $(ls "$here/$dir"/*.go 2>/dev/null); echo "$ldflags $*") | sha256sum | cut -c1-16)
  local pkgs=() bins=() p
  for p in "$@"; do
    pkgs+=("${p%%=*}")
    if [[ $p == *=* ]]; then bins+=("$out/bin/${p#*=}"); else bins+=("$out/bin/$(basename "$p")"); fi
  done
  if fresh "$dir" "$stamp" "${bins[@]}"; then echo "control-plane: $dir is built"; return; fi
  echo "control-plane: building $dir (${pkgs[*]})"
  local start=$SECONDS i
  for i in "${!pkgs[@]}"; do
    (cd "$here/$dir" && go build -ldflags "-s -w $ldflags" -o "${bins[$i]}" "${pkgs[$i]}")
  done
  echo "$stamp" > "$out/stamps/$dir"
  echo "control-plane: $dir built in $((SECONDS - start)) s"
}

upstream_files() {  # upstream_files <dir> <module> <path>...: the pinned module's own files, into <out>/<dir>/
  local dir=$1 module=$2; shift 2
  local src; src=$(cd "$here/$dir" && go mod download -json "$module" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [[ -d $src ]] || { echo "control-plane: no source of $module" >&2; exit 1; }
  rm -rf "${out:?}/$dir" && mkdir -p "$out/$dir"
  (cd "$src" && cp -r --parents "$@" "$out/$dir/")
  chmod -R u+w "$out/$dir"
}

pinned() {  # pinned <module> <go.mod>: the version go.mod requires
  awk -v m="$1" '($1 == m) {print $2} ($1 == "require" && $2 == m) {print $3}' "$2" | head -1
}
k8s_version=$(pinned k8s.io/kubernetes "$here/kubernetes/go.mod")
[[ $k8s_version == v1.* ]] || { echo "control-plane: no k8s.io/kubernetes version in go.mod" >&2; exit 1; }
minor=${k8s_version#v1.}; minor=${minor%%.*}
v=k8s.io/component-base/version
go_part kubernetes "-X $v.gitVersion=$k8s_version -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler
go_part etcd "" shoal.local/control-plane/etcd
kwok_version=$(pinned sigs.k8s.io/kwok "$here/kwok/go.mod")
go_part kwok "-X sigs.k8s.io/kwok/pkg/consts.Version=$kwok_version" sigs.k8s.io/kwok/cmd/kwok
helm_version=$(pinned helm.sh/helm/v3 "$here/helm/go.mod")
go_part helm "-X helm.sh/helm/v3/internal/version.version=$helm_version" helm.sh/helm/v3/cmd/helm
volcano_version=$(pinned volcano.sh/volcano "$here/volcano/go.mod")
go_part volcano "-X volcano.sh/volcano/pkg/version.Version=$volcano_version" \
  volcano.sh/volcano/cmd/scheduler=vc-scheduler volcano.sh/volcano/cmd/controller-manager=vc-controller-manager
kueue_version=$(pinned sigs.k8s.io/kueue "$here/kueue/go.mod")
go_part kueue "-X sigs.k8s.io/kueue/pkg/version.GitVersion=$kueue_version" sigs.k8s.io/kueue/cmd/kueue
# What the peers install and read, as upstream ships it: CRDs, webhooks, default configurations.
upstream_files volcano volcano.sh/volcano config/crd/volcano/bases config/crd/jobflow/bases \
  installer/helm/chart/volcano/config/volcano-scheduler.conf
upstream_files kueue sigs.k8s.io/kueue config/components/crd/bases config/components/webhook/manifests.yaml \
  config/components/manager/controller_manager_config.yaml

kafka_stamp=$(stamp_of "$here/kafka/pom.xml" "$here/kafka/jars.sha256")
if fresh kafka "$kafka_stamp" "$out/kafka/libs"; then
  echo "control-plane: kafka is built"
else
  echo "control-plane: resolving the Kafka broker's jars"
  rm -rf "$out/kafka/libs"
  mvn -q -B -Dstyle.color=never -f "$here/kafka/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$out/kafka/libs"
  (cd "$out/kafka/libs" && sha256sum --quiet -c "$here/kafka/jars.sha256")
  [[ $(ls "$out/kafka/libs" | wc -l) == $(wc -l < "$here/kafka/jars.sha256") ]] \
    || { echo "control-plane: kafka/libs differs from jars.sha256" >&2; exit 1; }
  echo "$kafka_stamp" > "$out/stamps/kafka"
fi
