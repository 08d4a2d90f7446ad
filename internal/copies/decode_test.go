package copies

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// savedSeeds are files of copies as Files writes them, and the shapes
// around it that decodeSaved leaves to json.Unmarshal.
func savedSeeds(t testing.TB) [][]byte {
	s := New()
	s.Put(manifest.HashBytes([]byte("a")), Of("https://a.example.org/", []byte("# A <b> & \"c\"\n\n\tline\u2028 caf\u00e9 \U0001F600\n")))
	s.Put(manifest.HashBytes([]byte("b")), &Copy{AgentURL: "https://a.example.org/", Text: "cut here\n", Cut: true})
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	seeds := [][]byte{
		[]byte(`{"copies":{}}`),
		[]byte(`{"copies":null}`),
		[]byte(`{"copies":{"sha256:00":null}}`),
		[]byte(`{"Copies":{"sha256:00":{"Text":"x"}}}`),
		[]byte(`{"copies":{"x":{"text":"a"}},"copies":{"y":{"text":"\ud83d\ude00"}}}`),
		[]byte(`{"copies":{"x":{"text":"\u00e9\/\b\f\r","cut":false,"other":1}}}`),
		[]byte("{\"copies\":{\"x\":{\"text\":\"\xff\"}}}"),
		[]byte(`{"copies":{"x":{"text":"a"}}} x`),
	}
	for _, f := range files {
		seeds = append(seeds, f)
	}
	return seeds
}

// TestDecodeSavedReadsWhatFilesWrites: the files Save writes are
// decoded without encoding/json, to the copies they hold.
func TestDecodeSavedReadsWhatFilesWrites(t *testing.T) {
	s := New()
	s.Put(manifest.HashBytes([]byte("a")), Of("https://a.example.org/", []byte("# A <b> & \"c\"\n\ttab\u2028 caf\u00e9 \U0001F600\n")))
	s.Put(manifest.HashBytes([]byte("b")), &Copy{AgentURL: "https://a.example.org/", Text: "cut\n", Cut: true})
	files, err := s.Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		got, ok := decodeSaved(data)
		if !ok {
			t.Fatalf("%s: decodeSaved refused what Files wrote:\n%s", name, data)
		}
		if !reflect.DeepEqual(got, s.ByHash) {
			t.Errorf("%s: decodeSaved gave %v, want %v", name, got, s.ByHash)
		}
	}
}

// FuzzDecodeSavedMatchesJSON: whatever decodeSaved accepts, json.Unmarshal
// accepts too and decodes to the same copies.
func FuzzDecodeSavedMatchesJSON(f *testing.F) {
	for _, s := range savedSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeSaved(data)
		if !ok {
			return
		}
		var want Copies
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("decodeSaved accepted %q, which json.Unmarshal refuses: %v", data, err)
		}
		if !reflect.DeepEqual(got, want.ByHash) {
			t.Fatalf("decodeSaved(%q) = %v, json.Unmarshal gives %v", data, got, want.ByHash)
		}
	})
}
