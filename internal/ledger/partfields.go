package ledger

import "github.com/meshnode/meshnode/internal/manifest"

// The keys readPart reads, each type's in the order of its fields, which
// is the order encoding/json writes them in (records.go, disputes.go).
// A field added to a record and not here makes readPart decline every
// file that holds it, which TestNodeWrittenPartsTakeTheFastPath catches.

var jsonPart = []field[part]{
	{"form", func(r *partReader, p *part) { p.Form = r.int() }},
	{"traces", func(r *partReader, p *part) { p.Traces = records[manifest.Hash](r, jsonTrace) }},
	{"validations", func(r *partReader, p *part) { p.Validations = records[string](r, jsonValidation) }},
	{"rejected", func(r *partReader, p *part) { p.Rejected = records[string](r, jsonRejection) }},
	{"disputes", func(r *partReader, p *part) { p.Disputes = records[string](r, jsonDispute) }},
	{"copies", func(r *partReader, p *part) { p.Copies = records[string](r, jsonTrace) }},
}

var jsonTrace = []field[Trace]{
	{"agent", func(r *partReader, t *Trace) { t.Agent = r.shared() }},
	{"agent_url", func(r *partReader, t *Trace) { t.AgentURL = r.shared() }},
	{"seq", func(r *partReader, t *Trace) { t.Seq = manifest.Seq(r.int()) }},
	{"hash", func(r *partReader, t *Trace) { t.Hash = r.hash() }},
	{"file", func(r *partReader, t *Trace) { t.File = r.string() }},
	{"url", func(r *partReader, t *Trace) { t.URL = r.string() }},
	{"type", func(r *partReader, t *Trace) { t.Type = r.shared() }},
	{"category", func(r *partReader, t *Trace) { t.Category = r.shared() }},
	{"title", func(r *partReader, t *Trace) { t.Title = r.string() }},
	{"status", func(r *partReader, t *Trace) { t.Status = manifest.Status(r.shared()) }},
	{"submitted", func(r *partReader, t *Trace) { t.Submitted = r.time() }},
	{"first_seen", func(r *partReader, t *Trace) { t.FirstSeen = r.time() }},
	{"cites", func(r *partReader, t *Trace) { t.Cites = list(r, (*partReader).string) }},
	{"fingerprint", func(r *partReader, t *Trace) { t.Fingerprint = r.fingerprint() }},
	{"verified", func(r *partReader, t *Trace) { t.Verified = r.bool() }},
	{"verdicts", func(r *partReader, t *Trace) { t.Verdicts = list(r, readVerdict) }},
	{"taken_down", func(r *partReader, t *Trace) { t.TakenDown = r.shared() }},
}

// readVerdict reads one of a trace's verdicts.
func readVerdict(r *partReader) Verdict {
	var v Verdict
	object(r, &v, jsonVerdict)
	return v
}

var jsonVerdict = []field[Verdict]{
	{"agent", func(r *partReader, v *Verdict) { v.Agent = r.shared() }},
	{"seq", func(r *partReader, v *Verdict) { v.Seq = r.int() }},
	{"result", func(r *partReader, v *Verdict) { v.Result = r.shared() }},
}

var jsonValidation = []field[Validation]{
	{"validator", func(r *partReader, v *Validation) { v.Validator = r.shared() }},
	{"validator_url", func(r *partReader, v *Validation) { v.ValidatorURL = r.shared() }},
	{"trace_url", func(r *partReader, v *Validation) { v.TraceURL = r.string() }},
	{"trace_hash", func(r *partReader, v *Validation) { v.TraceHash = manifest.Hash(r.string()) }},
	{"result", func(r *partReader, v *Validation) { v.Result = r.shared() }},
	{"total", func(r *partReader, v *Validation) { v.Total = r.int() }},
	{"scores", func(r *partReader, v *Validation) { v.Scores = r.scores() }},
	{"has_scores", func(r *partReader, v *Validation) { v.HasScores = r.bool() }},
	{"validated_at", func(r *partReader, v *Validation) { v.ValidatedAt = r.time() }},
	{"source_url", func(r *partReader, v *Validation) { v.SourceURL = r.string() }},
	{"source_hash", func(r *partReader, v *Validation) { v.SourceHash = r.hash() }},
}

var jsonRejection = []field[Rejection]{
	{"agent", func(r *partReader, j *Rejection) { j.Agent = r.string() }},
	{"agent_url", func(r *partReader, j *Rejection) { j.AgentURL = r.string() }},
	{"seq", func(r *partReader, j *Rejection) { j.Seq = manifest.Seq(r.int()) }},
	{"claimed_hash", func(r *partReader, j *Rejection) { j.ClaimedHash = manifest.Hash(r.string()) }},
	{"served_hash", func(r *partReader, j *Rejection) { j.ServedHash = manifest.Hash(r.string()) }},
	{"at", func(r *partReader, j *Rejection) { j.At = r.time() }},
}

var jsonDispute = []field[Dispute]{
	{"reporter", func(r *partReader, d *Dispute) { d.Reporter = r.string() }},
	{"reporter_url", func(r *partReader, d *Dispute) { d.ReporterURL = r.string() }},
	{"agent", func(r *partReader, d *Dispute) { d.Agent = r.string() }},
	{"agent_url", func(r *partReader, d *Dispute) { d.AgentURL = r.string() }},
	{"file_url", func(r *partReader, d *Dispute) { d.FileURL = r.string() }},
	{"seq", func(r *partReader, d *Dispute) { d.Seq = manifest.Seq(r.int()) }},
	{"claimed_hash", func(r *partReader, d *Dispute) { d.ClaimedHash = manifest.Hash(r.string()) }},
	{"served_hash", func(r *partReader, d *Dispute) { d.ServedHash = manifest.Hash(r.string()) }},
	{"observed_at", func(r *partReader, d *Dispute) { d.ObservedAt = r.time() }},
	{"source_url", func(r *partReader, d *Dispute) { d.SourceURL = r.string() }},
	{"source_hash", func(r *partReader, d *Dispute) { d.SourceHash = r.hash() }},
}
