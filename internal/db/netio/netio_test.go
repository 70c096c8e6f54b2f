package netio

import (
	"runtime"
	"strconv"
	"testing"
)

// Resolve: auto blocks with up to two threads per CPU, or, when the user
// set GOMAXPROCS, with fewer threads than Ps; the other modes stay.
func TestResolve(t *testing.T) {
	if !rawAvailable {
		if got := Resolve(Auto, 1); got != Net {
			t.Fatalf("on %s auto resolves to %s, want net", runtime.GOOS, got)
		}
		return
	}
	p := startProcs
	cases := []struct {
		userProcs bool
		mode      Mode
		threads   int
		want      Mode
	}{
		{false, Auto, 0, Blocking}, {false, Auto, 1, Blocking}, {false, Auto, 2 * p, Blocking}, {false, Auto, 2*p + 1, Poller},
		{false, Blocking, 2*p + 1, Blocking}, {false, Poller, 1, Poller}, {false, Net, 1, Net},
		{true, Auto, p - 1, Blocking}, {true, Auto, p, Poller}, {true, Blocking, p, Blocking},
	}
	for _, c := range cases {
		v := ""
		if c.userProcs {
			v = strconv.Itoa(p)
		}
		t.Setenv("GOMAXPROCS", v)
		if got := Resolve(c.mode, c.threads); got != c.want {
			t.Errorf("GOMAXPROCS=%q: Resolve(%s, %d) = %s, want %s", v, c.mode, c.threads, got, c.want)
		}
	}
}

// Setting reads pg.io (or mysql.io), and the older pg.blockingio and
// pg.rawio as aliases with the meaning they had on each backend; a value
// it does not know is an error naming the property.
func TestSetting(t *testing.T) {
	cases := []struct {
		props     map[string]string
		rawioLast bool
		want      Mode
		err       string
	}{
		{nil, true, PollerOrNet(), ""},
		{map[string]string{"pg.io": "auto"}, true, Auto, ""},
		{map[string]string{"pg.io": "blocking"}, true, Blocking, ""},
		{map[string]string{"pg.io": "poller"}, true, Poller, ""},
		{map[string]string{"pg.io": "net"}, true, Net, ""},
		{map[string]string{"pg.io": "net", "pg.blockingio": "true"}, true, Net, ""}, // the new name decides
		{map[string]string{"pg.blockingio": "true"}, true, Blocking, ""},
		{map[string]string{"pg.blockingio": "false"}, true, Poller, ""},
		{map[string]string{"pg.blockingio": "auto"}, true, Auto, ""},
		{map[string]string{"pg.rawio": "false"}, true, Net, ""},
		{map[string]string{"pg.rawio": "false", "pg.blockingio": "false"}, true, Net, ""},
		{map[string]string{"pg.rawio": "false", "pg.blockingio": "true"}, true, Blocking, ""},
		{map[string]string{"pg.rawio": "false", "pg.blockingio": "true"}, false, Net, ""},
		{map[string]string{"pg.rawio": "true", "pg.blockingio": "false"}, true, Poller, ""},
		{map[string]string{"pg.io": "kernel"}, true, "", `property pg.io="kernel": the values are auto, blocking, poller, net`},
	}
	for _, c := range cases {
		got, err := Setting(func(k string) string { return c.props[k] }, "pg", c.rawioLast, PollerOrNet())
		if !rawAvailable && (c.want == Blocking || c.want == Poller) {
			if err == nil {
				t.Errorf("%v on %s: %s, want an error", c.props, runtime.GOOS, got)
			}
			continue
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != c.want || msg != c.err {
			t.Errorf("%v: %q, %q; want %q, %q", c.props, got, msg, c.want, c.err)
		}
	}
}
