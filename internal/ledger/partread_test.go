package ledger

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/validation"
)

// generalPart is data read as decodePart read every file before readPart:
// through encoding/json.
func generalPart(data []byte) (part, error) {
	p := part{Ledger: &Ledger{}}
	err := json.Unmarshal(data, &p)
	return p, err
}

// fastPart is data read by readPart with strs, and whether it took it.
func fastPart(data []byte, strs interner) (part, bool) {
	p := part{Ledger: &Ledger{}}
	ok := readPart(data, &p, strs)
	return p, ok
}

// sameDecode fails t when readPart, with an interner or without, takes
// data and the general decode gives other records or an error, or when
// the two take it differently; it reports whether readPart took it.
func sameDecode(t *testing.T, data []byte) bool {
	t.Helper()
	fast, ok := fastPart(data, nil)
	shared, sharedOK := fastPart(data, interner{"jolt37": "jolt37"})
	if ok != sharedOK || !reflect.DeepEqual(fast, shared) {
		t.Fatalf("readPart read %q as %v without an interner, %v with one", data, ok, sharedOK)
	}
	if !ok {
		if empty, _ := fastPart(nil, nil); !reflect.DeepEqual(fast, empty) {
			t.Fatalf("readPart declined %q but left records in the part", data)
		}
		return false
	}
	general, err := generalPart(data)
	if err != nil {
		t.Fatalf("readPart took %q, which the general decode refuses: %v", data, err)
	}
	if !reflect.DeepEqual(fast, general) {
		t.Fatalf("readPart read %q as\n%+v\nthe general decode as\n%+v", data, fast.Ledger, general.Ledger)
	}
	return true
}

func TestReadPartSharesWhatRecordsRepeat(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "window-peer.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := fastPart(data, interner{})
	if !ok {
		t.Fatal("readPart declined a three-year history's peer file")
	}
	var agents []string
	for k, tr := range p.Traces {
		agents = append(agents, tr.Agent)
		if unsafe.StringData(string(tr.Hash)) != unsafe.StringData(string(k)) {
			t.Errorf("trace %s holds its hash apart from its key", k)
		}
	}
	for k, v := range p.Validations {
		agents = append(agents, v.Validator)
		if !strings.HasSuffix(k, string(v.SourceHash)) || unsafe.StringData(string(v.SourceHash)) != unsafe.StringData(k[len(k)-len(v.SourceHash):]) {
			t.Errorf("validation %s holds its file's hash apart from its key", k)
		}
	}
	if len(agents) < 2 {
		t.Fatalf("the file holds %d records, want several", len(agents))
	}
	for _, a := range agents[1:] {
		if a != agents[0] || unsafe.StringData(a) != unsafe.StringData(agents[0]) {
			t.Errorf("the peer's name %q is held apart from %q", a, agents[0])
		}
	}
}

// bendable is a ledger whose records set every field a record has, in
// strings that encoding/json escapes as well as plain ones, with a trace
// whose URL its file does not give back and a validation without scores:
// the file that bent bends.
func bendable() *Ledger {
	at := time.Date(2028, 10, 18, 9, 30, 0, 0, time.UTC)
	l := New()
	t := &Trace{Agent: "jolt37", AgentURL: jolt, Seq: 41, Hash: formHash, File: "traces/41.md", URL: jolt + "traces/41.md",
		Type: "knowledge", Category: "ops", Title: `Tabs & <tags> "quoted" é ✓ ` + "\u2028", Status: manifest.StatusPending,
		Submitted: at, FirstSeen: at.Add(time.Hour), Cites: []string{"axon37/3", "vex/12"}, Fingerprint: 0x9bceea,
		Verified: true, Verdicts: []Verdict{{Agent: "axon37", Seq: 3, Result: "valid"}, {Agent: "vex", Seq: -1, Result: "invalid"}},
		TakenDown: Withdrawn}
	l.AddTrace(t)
	moved := *t
	moved.Hash, moved.Seq, moved.URL = manifest.HashBytes([]byte("moved")), 42, "https://mirror.example/42.md"
	l.AddTrace(&moved)
	copied := *t
	copied.Agent, copied.AgentURL, copied.URL = "axon37", "https://axon37.example/traces/", "https://axon37.example/traces/traces/41.md"
	l.AddCopy(&copied)
	var s validation.Scores
	copy(s[:], []int{4, 3, 4, 3, 3, 0})
	l.AddValidation(&Validation{Validator: "jolt37", ValidatorURL: jolt, TraceURL: "https://axon37.example/traces/traces/3.md",
		TraceHash: manifest.HashBytes([]byte("three")), Result: "pass", Total: 17, Scores: s, HasScores: true, ValidatedAt: at,
		SourceURL: jolt + "validations/v.md", SourceHash: manifest.HashBytes([]byte("v"))})
	l.AddValidation(&Validation{Validator: "jolt37", ValidatorURL: jolt, TraceHash: manifest.HashBytes([]byte("four")), Result: "fail",
		SourceHash: manifest.HashBytes([]byte("w"))})
	l.AddRejection(jolt+"traces/9.md", &Rejection{Agent: "jolt37", AgentURL: jolt, Seq: 9, ClaimedHash: formHash,
		ServedHash: manifest.HashBytes([]byte("other")), At: at})
	l.AddDispute(&Dispute{Reporter: "jolt37", ReporterURL: jolt, Agent: "vex", AgentURL: "https://vex.example/traces/",
		FileURL: "https://vex.example/traces/1.md", Seq: 1, ClaimedHash: formHash, ServedHash: manifest.HashBytes([]byte("x")),
		ObservedAt: at, SourceURL: jolt + "disputes/d.md", SourceHash: manifest.HashBytes([]byte("d"))})
	return l
}

// nodeWritten is every layout the node writes a ledger's records in: a
// peer's file of partForm (encodePart), of the older form (a trace
// without a hash keeps every record whole), and a segment's compact
// records.
func nodeWritten(t testing.TB) map[string][]byte {
	l := bendable()
	older := bendable()
	older.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 7})
	out := map[string][]byte{}
	for name, p := range map[string]*Ledger{"part form": l, "older form": older, "every field": everyFieldOf(t), "empty": New()} {
		data, err := encodePart(p)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = data
	}
	seg, err := json.Marshal(l.normalizedCopy())
	if err != nil {
		t.Fatal(err)
	}
	out["segment"] = seg
	real, err := os.ReadFile(filepath.Join("testdata", "window-peer.json"))
	if err != nil {
		t.Fatal(err)
	}
	out["a three-year history's peer file"] = real
	return out
}

func TestNodeWrittenPartsTakeTheFastPath(t *testing.T) {
	files := nodeWritten(t)
	if !bytes.Contains(files["part form"], []byte(`"form": 2`)) || bytes.Contains(files["older form"], []byte(`"form"`)) {
		t.Fatalf("the fixtures are not of the forms they are named for:\n%s\n%s", files["part form"], files["older form"])
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			if !sameDecode(t, data) {
				t.Errorf("readPart declined a file the node writes:\n%s", data)
			}
		})
	}
}

// bent are a peer's file the node writes, each changed at one place
// readPart checks, and whether readPart still takes it.
var bent = []struct {
	name, from, to string
	fast           bool
}{
	{"compact", "\n  ", "", true},
	{"a field left out", `"category": "ops",`, "", true},
	{"an escape in a value", `"agent": "jolt37"`, `"agent": "jolt\u0033\u0037"`, true},
	{"a byte that is not UTF-8", `"title": "Tabs`, "\"title\": \"\xffTabs", true},
	{"a key in another case", `"agent":`, `"Agent":`, false},
	{"an escape in a key", `"agent":`, `"\u0061gent":`, false},
	{"keys reordered", `"agent": "jolt37",` + "\n      " + `"agent_url": "https://jolt37.hive37.ai/traces/",`, `"agent_url": "https://jolt37.hive37.ai/traces/",` + "\n      " + `"agent": "jolt37",`, false},
	{"a key twice", `"seq": 41,`, `"seq": 41, "seq": 40,`, false},
	{"an unknown key", `"seq": 41,`, `"seq": 41, "extra": [1, {"a": null}],`, false},
	{"a null value", `"type": "knowledge"`, `"type": null`, false},
	{"a null record", `"traces": {`, `"traces": {"sha256:00": null,`, false},
	{"a fraction", `"seq": 41`, `"seq": 41.0`, false},
	{"an exponent", `"seq": 41`, `"seq": 4.1e1`, false},
	{"a leading zero", `"seq": 41`, `"seq": 041`, false},
	{"a number too long", `"seq": 41`, `"seq": 1234567890123456789012`, false},
	{"a quoted number", `"seq": 41`, `"seq": "41"`, false},
	{"a quoted bool", `"verified": true`, `"verified": "true"`, false},
	{"false", `"verified": true`, `"verified": false`, true},
	{"scores as an array", `"scores": {`, `"scores": [4, 3, 4, 3, 3, 0], "x": {`, false},
	{"scores reordered", `"substance": 4,` + "\n        " + `"uniqueness": 3`, `"uniqueness": 3,` + "\n        " + `"substance": 4`, false},
	{"a bad fingerprint", `"fingerprint": "`, `"fingerprint": "x`, false},
	{"a bad time", `"submitted": "2028`, `"submitted": "28`, false},
	{"a time with an offset", `"submitted": "2028-10-18T09:30:00Z"`, `"submitted": "2028-10-18T11:30:00+02:00"`, true},
	{"a control byte", `"title": "Tabs`, "\"title\": \"\tTabs", false},
	{"an unknown form", `"form": 2`, `"form": 3`, true},
	{"trailing bytes", "}\n", "}\n}", false},
	{"trailing whitespace", "}\n", "}\n \t\r\n", true},
	{"a missing comma", `"seq": 41,`, `"seq": 41`, false},
	{"cites empty", "\"cites\": [\n        \"axon37/3\",\n        \"vex/12\"\n      ]", `"cites": []`, true},
}

func TestReadPartReadsOrDeclinesAsTheGeneralDecode(t *testing.T) {
	own := nodeWritten(t)["part form"]
	for _, c := range bent {
		t.Run(c.name, func(t *testing.T) {
			if !bytes.Contains(own, []byte(c.from)) {
				t.Fatalf("the file holds no %q:\n%s", c.from, own)
			}
			data := bytes.Replace(own, []byte(c.from), []byte(c.to), 1)
			if got := sameDecode(t, data); got != c.fast {
				t.Errorf("readPart took it: %v, want %v:\n%s", got, c.fast, data)
			}
		})
	}
}

func TestReadPartKnowsEveryKeyOfARecordInItsOrder(t *testing.T) {
	for _, c := range []struct {
		record any
		keys   []string
	}{
		{Trace{}, fieldNames(jsonTrace)},
		{Validation{}, fieldNames(jsonValidation)},
		{Rejection{}, fieldNames(jsonRejection)},
		{Dispute{}, fieldNames(jsonDispute)},
		{Verdict{}, fieldNames(jsonVerdict)},
		{Ledger{}, fieldNames(jsonPart)[1:]},
	} {
		typ := reflect.TypeOf(c.record)
		var want []string
		for i := range typ.NumField() {
			if tag := typ.Field(i).Tag.Get("json"); tag != "" {
				want = append(want, strings.Split(tag, ",")[0])
			}
		}
		if !reflect.DeepEqual(c.keys, want) {
			t.Errorf("readPart reads %s's keys %v, its JSON has %v", typ.Name(), c.keys, want)
		}
	}
}

func fieldNames[T any](fields []field[T]) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.name)
	}
	return out
}

// FuzzReadPartMatchesGeneral checks that for any bytes readPart either
// declines or reads the records the general decode reads, which then
// gives no error. Seeded with the files the node writes, an older node's
// single file, the corrupt ones of TestCorruptLedgerFileIsRefused and
// the node's file bent at each place readPart checks.
func FuzzReadPartMatchesGeneral(f *testing.F) {
	own := nodeWritten(f)
	for _, data := range own {
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	legacy, err := os.ReadFile(filepath.Join("testdata", "legacy-single-file.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(legacy)
	for _, c := range bent {
		f.Add(bytes.Replace(own["part form"], []byte(c.from), []byte(c.to), 1))
	}
	for _, s := range []string{"", "null", "{}", "[]", `{"traces":{"a":{}}}`, `{"traces":`, `{"form":2,"traces":{"sha256:00":{"seq":-0}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecode(t, data)
	})
}

func TestOrdinaryRunStopsAtEveryByteAStringMustCheck(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			b := bytes.Repeat([]byte("a"), 20)
			b[at] = byte(c)
			want := at
			if ordinary[c] {
				want = len(b)
			}
			if got := ordinaryRun(b); got != want {
				t.Fatalf("ordinaryRun with byte %#x at %d: %d, want %d", c, at, got, want)
			}
		}
	}
}
