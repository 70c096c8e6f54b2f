package postgres

import "testing"

// tagRows reads a command tag's count as pgconn.CommandTag.RowsAffected does.
func TestTagRows(t *testing.T) {
	for tag, want := range map[string]int64{
		"SELECT 1": 1, "INSERT 0 12": 12, "UPDATE 0": 0, "DELETE 3051": 3051,
		"CREATE TABLE": 0, "LISTEN": 0, "": 0,
	} {
		if got := tagRows([]byte(tag)); got != want {
			t.Errorf("tagRows(%q) = %d, want %d", tag, got, want)
		}
	}
}
