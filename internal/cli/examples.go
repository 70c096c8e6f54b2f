package cli

import "github.com/spf13/cobra"

// examples are the Examples sections of `docbench help CMD`, by command
// path; TestEveryCommandHasExamples keeps the list complete.
var examples = map[string]string{
	"docbench load": `  docbench load -t sqlite:ycsb.db -P workloada -p recordcount=100000 -p batchsize=1000
  docbench load -t postgres://bench@127.0.0.1/bench -P workloada -p document.shape=customer
  docbench load -t postgres:embedded -P workloada -p layout=document -p index=gin_path_ops`,
	"docbench run": `  docbench run -t sqlite:ycsb.db -P workloada -p recordcount=100000 -p operationcount=0 --duration 60s --warmup 10s
  docbench run -t postgres:embedded -P workloadc --threads 4 --rate 5000 --duration 30s --out c.json
  docbench run -t sqlite:ycsb.db -P workloadb -threads 4 -target 1000 --format ycsb    # YCSB's own flags`,
	"docbench quickstart": `  docbench quickstart
  docbench quickstart --quick --out /tmp/qs
  docbench quickstart --replay orders.ndjson --mix queries.yaml -t mongo=mongodb://db1/bench
  docbench quickstart -t mysql://root:pw@127.0.0.1:3306/bench -p document.shape=customer`,
	"docbench study": `  docbench study document-size --quick
  docbench study partial-update --out results/partial -t postgres://bench@db1/bench
  docbench study my-study.yaml --force --out results/mine
  docbench study quickstart --pg-versions 13,16,18`,
	"docbench report":  `  docbench report docbench-results/document-size-20261123-081500`,
	"docbench compare": "  docbench compare pg.json sqlite.json --strict\n  docbench compare pg13.json pg18.json\n  docbench compare results/before results/after\n  docbench compare results/before results/after --all",
	"docbench doc": `  docbench doc --key 0
  docbench doc -p document.shape=customer --key 42 --compact
  docbench doc -p document.shape=blog --paths`,
	"docbench storage": `  docbench storage orders.ndjson
  docbench storage orders.ndjson -t postgres://bench@db1/bench -t sqlite:/tmp/s.db --format json
  docbench storage -p document.shape=blog -p recordcount=20000`,
	"docbench verify":  `  docbench verify -t sqlite:ycsb.db -P workloada -p recordcount=100000`,
	"docbench targets": `  docbench targets`,
	"docbench version": `  docbench version`,
	"docbench merge": `  docbench merge shard-0.json shard-1.json shard-2.json --out merged.json
  kubectl logs -l app.kubernetes.io/instance=bench --prefix --tail=-1 | docbench merge -`,
	"docbench kube": `  docbench kube job -t postgres://bench:PW@db/bench -P workloada --shards 4 --image registry/docbench:v1 > job.yaml
  docbench kube collect bench --out merged.json`,
	"docbench capacity": `  docbench capacity -t sqlite:ycsb.db -P workloada -p recordcount=100000 --threads 8 --slo 'p99<5ms'
  docbench capacity -t postgres:embedded -P workloadc --slo 'p99<2ms' --slo 'READ.p99.9<10ms' --precision 2% --trial 30s
  docbench capacity -t postgres://bench@db/bench -P workloadc --slo 'p99<5ms' --ladder 2000:16000 --shard 0/4 --start-at +60s --format jsonl`,
	"docbench kube job": `  docbench kube job -t postgres://bench:PW@db/bench -P workloadc --shards 8 --rate 80000 --duration 5m --image registry/docbench:v1
  docbench kube job -t postgres://bench:PW@db/bench -P workloadc --shards 4 --slo 'p99<5ms' --ladder 2000:16000 --trial 20s --image registry/docbench:v1`,
	"docbench kube collect": `  docbench kube collect bench -n loadtest --out merged.json`,
	"docbench cache":        "  docbench cache\n  docbench cache clean",
	"docbench cache clean":  "  docbench cache clean",
}

// addExamples sets the Examples section of every command that has one.
func addExamples(c *cobra.Command) {
	if e, ok := examples[c.CommandPath()]; ok && c.Example == "" {
		c.Example = e
	}
	for _, sub := range c.Commands() {
		addExamples(sub)
	}
}
