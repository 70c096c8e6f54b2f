package db

import "testing"

func TestClassifyUnknownBackend(t *testing.T) {
	want := Audit{Durability: DurabilityUnknown, DurabilityDetail: "settings not recorded", KeyIndex: KeyNone,
		SecondaryIndexes: "none", Compression: "none", Memory: "unknown"}
	for _, b := range []string{"", "null", "cassandra"} {
		if got := Classify(b, map[string]string{"fsync": "off"}, map[string]string{"key": "x PRIMARY KEY"}); got != want {
			t.Errorf("%q: %+v", b, got)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for in, want := range map[string]string{"134217728": "128.00 MiB", "1536": "1.5 KiB", "12": "12 B", "lots": "lots", "": ""} {
		if got := HumanBytes(in); got != want {
			t.Errorf("HumanBytes(%q) = %q, want %q", in, got, want)
		}
	}
}
