package relay

import (
	"bytes"
	"testing"
)

// FuzzParseEntry checks that any bytes a relay serves as an entry either
// fail with an error or parse to an entry that marshals back to them.
func FuzzParseEntry(f *testing.F) {
	a := newAgent(f, "https://agent.example/mesh/")
	good, err := a.entry(f).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("agent https://agent.example/mesh/\n"))
	f.Add([]byte("agent HTTPS://Agent.example/mesh\nx\n\n— y\n"))
	f.Add([]byte("agent https://a.example/\nt\n\nsig\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEntry(data)
		if err != nil {
			return
		}
		again, err := e.Marshal()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("parsed %q, marshals to %q, %v", data, again, err)
		}
	})
}
