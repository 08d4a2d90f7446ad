package translog

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzParseEntry: an entry that parses marshals back to the same bytes
// (one spelling per entry), and nothing panics.
func FuzzParseEntry(f *testing.F) {
	for _, e := range entriesN(3) {
		b, _ := e.Marshal()
		f.Add(b)
	}
	f.Add([]byte("seq 1\nhash sha256:00\nfile a\ntype \ncategory \nsubmitted \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEntry(data)
		if err != nil {
			return
		}
		again, err := e.Marshal()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("round trip: %q → %+v → %q, %v", data, e, again, err)
		}
	})
}

// FuzzParseCheckpoint: a checkpoint that parses keeps its three values
// through Marshal and a second parse.
func FuzzParseCheckpoint(f *testing.F) {
	f.Add(string(Checkpoint{Origin: testOrigin, Size: 3}.Marshal()))
	f.Add("o\n01\nAAAA\n")
	f.Add("o\n5\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\nextension\n")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseCheckpoint(text)
		if err != nil {
			return
		}
		again, err := ParseCheckpoint(string(c.Marshal()))
		if err != nil || again != c {
			t.Fatalf("round trip: %q → %+v → %+v, %v", text, c, again, err)
		}
	})
}

// FuzzParseBundle: a bundle that parses is rebuilt from its entries byte
// for byte.
func FuzzParseBundle(f *testing.F) {
	files := func() map[string][]byte {
		var tr Tree
		for _, e := range entriesN(3) {
			b, _ := e.Marshal()
			tr.Append(b)
		}
		m, _ := tr.Tiles()
		return m
	}()
	f.Add(files["tile/entries/000.p/3"])
	f.Add([]byte{0, 5, 'a'})
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseBundle(data)
		if err != nil {
			return
		}
		var again []byte
		for _, e := range entries {
			again = binary.BigEndian.AppendUint16(again, uint16(len(e)))
			again = append(again, e...)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("round trip: %x → %x", data, again)
		}
	})
}

// FuzzParseKeyStatement: a key statement that parses marshals back to the
// same text (one spelling per statement), and nothing panics, verifying
// included (a statement, or the same bytes as a rotated checkpoint).
func FuzzParseKeyStatement(f *testing.F) {
	newS, newV, err := GenerateKey(testOrigin)
	if err != nil {
		f.Fatal(err)
	}
	k := KeyStatement{Kind: KindRotation, Origin: testOrigin, Previous: testVKey, Key: newV, Size: 4}
	text, _ := k.Marshal()
	f.Add(string(text))
	msg, _ := SignKeyStatement(k, testSKey, newS)
	f.Add(string(msg))
	k.Kind = KindRestart
	text, _ = k.Marshal()
	f.Add(string(text))
	cp, _ := Sign(Checkpoint{Origin: testOrigin, Size: 4}, testSKey, newS)
	f.Add(string(cp))
	f.Add("meshnode log key rotation\norigin o\nprevious o+00000000+AA\nkey o+00000000+AB\nsize 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		VerifyRotation(testVKey, []byte(text), testOrigin)
		VerifyRestart([]byte(text), testOrigin)
		OpenRotated([]byte(text), testVKey, newV, 4)
		k, err := ParseKeyStatement(text)
		if err != nil {
			return
		}
		again, err := k.Marshal()
		if err != nil || string(again) != text {
			t.Fatalf("round trip: %q → %+v → %q, %v", text, k, again, err)
		}
	})
}
