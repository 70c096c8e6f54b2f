// Package merge combines the results of the shards of one phase — N
// docbench processes that each ran a slice of the workload (--shard K/N) —
// into one result: counts summed, percentiles read from merged
// histograms (never averaged), per-second series summed by wall-clock
// second, the server's own figures taken once.
package merge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/docbench/docbench/internal/report"
)

// Input is one shard result and where it came from.
type Input struct {
	Source string
	Result *report.Result
}

// resultMark begins every result printed with --format jsonl (schema is
// its first field).
const resultMark = `{"schema":"docbench/result/`

// Read reads the shard results in data, named source in messages: a result
// file (indented JSON), a stream of results (one per line, as --format
// jsonl prints them), or a log in which some lines end with a result — what
// `kubectl logs` prints for the pods of a sharded Job, with or without
// --prefix. Other log lines are skipped.
func Read(data []byte, source string) ([]Input, error) {
	if in, err := readStream(data, source); err == nil {
		return in, nil
	}
	var in []Input
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		i := strings.Index(line, resultMark)
		if i < 0 {
			continue
		}
		name := fmt.Sprintf("%s:%d", source, n)
		if p := strings.TrimSpace(line[:i]); strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]") {
			name = p[1:len(p)-1] + " (" + name + ")" // kubectl logs --prefix
		}
		r, err := decode([]byte(line[i:]), name)
		if err != nil {
			return nil, err
		}
		in = append(in, Input{Source: name, Result: r})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("%s: no docbench result in it (want result JSON, --format jsonl lines or the pods' logs)", source)
	}
	return in, nil
}

// readStream decodes data as one or more JSON results back to back.
func readStream(data []byte, source string) ([]Input, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var in []Input
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		name := source
		if len(in) > 0 {
			name = fmt.Sprintf("%s#%d", source, len(in)+1)
		}
		r, err := decode(raw, name)
		if err != nil {
			return nil, err
		}
		in = append(in, Input{Source: name, Result: r})
	}
	if len(in) == 0 {
		return nil, errors.New("empty")
	}
	return in, nil
}

func decode(b []byte, name string) (*report.Result, error) {
	var r report.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a docbench result: %w", name, err)
	}
	if r.Schema != report.Schema {
		if r.Schema == "" {
			return nil, fmt.Errorf("%s: not a docbench result (no schema field)", name)
		}
		return nil, fmt.Errorf("%s: result schema %q, this docbench reads %q", name, r.Schema, report.Schema)
	}
	return &r, nil
}
