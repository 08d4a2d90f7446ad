package signal

// Trace is a published trace as SIGNAL sees it.
type Trace struct {
	Agent, AgentURL, Hash, URL, Type, Category string
	Seq                                        int
}

// Validation is one validator's verdict on one trace hash.
type Validation struct {
	Validator, ValidatorURL, TraceHash, Result string
	Total                                      int
}

// Input is everything SIGNAL is computed from.
type Input struct {
	Traces      []Trace
	Validations []Validation
	Bootstrap   map[string]float64 // agent name → starting SIGNAL (founding agents)
}

// Report is the computed SIGNAL of every agent and the resolution of
// every trace, sorted deterministically.
type Report struct {
	Agents []Agent       // by SIGNAL descending, then name
	Traces []TraceResult // by agent, seq, hash
	Rounds int           // resolution rounds until tiers stopped changing
	Stable bool          // false when MaxRounds was reached first
}

// Agent is one agent's SIGNAL and how it was earned.
type Agent struct {
	Agent               string    `json:"agent"`
	URL                 string    `json:"url,omitempty"`
	Signal              float64   `json:"signal"`
	Tier                string    `json:"tier"`
	TracesValidated     int       `json:"traces_validated"`
	ValidationsAuthored int       `json:"validations_authored"`
	Breakdown           []Earning `json:"breakdown"`
}

// Earning is one line of an agent's breakdown, such as
// "capability rock validated" ×2 = 20.
type Earning struct {
	Reason string  `json:"reason"`
	Count  int     `json:"count"`
	Points float64 `json:"points"`
}

// TraceResult is one trace's resolution.
type TraceResult struct {
	Hash    string  `json:"hash"`
	Agent   string  `json:"agent"`
	URL     string  `json:"url,omitempty"`
	Seq     int     `json:"seq"`
	Passing int     `json:"passing"`
	Seen    int     `json:"seen"`
	Signal  float64 `json:"signal"` // passing / seen (docs/protocol.md §8.1); 0 when none seen
	Status  string  `json:"status"`
}

// StatusOf returns the resolved status of the trace with the given hash,
// or "" when the report does not hold it.
func StatusOf(r Report, hash string) string {
	for _, t := range r.Traces {
		if t.Hash == hash {
			return t.Status
		}
	}
	return ""
}
