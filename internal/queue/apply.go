package queue

import (
	"fmt"
	"time"
)

// check refuses an update that can never apply, whatever the item.
func (u Update) check() error {
	if u.Result != nil && (u.Kind != Finish || u.Status != StatusDone) {
		return fmt.Errorf("%s: a result goes only with a finish as done", u.ID)
	}
	switch u.Kind {
	case Finish, Decide:
		if !terminal(u.Status) {
			return fmt.Errorf("%s: status %q is not done, failed or skipped", u.ID, u.Status)
		}
	case Suggest:
		if u.Suggestion == nil {
			return fmt.Errorf("%s: suggest without a suggestion", u.ID)
		}
	case Renew, Release, Publish, Note:
	default:
		return fmt.Errorf("%s: unknown update kind %d", u.ID, u.Kind)
	}
	return nil
}

// Apply changes the items for u; it is the rule every store follows.
func (u Update) Apply(items map[string]*Item) error {
	if err := u.check(); err != nil {
		return err
	}
	it := items[u.ID]
	if it == nil {
		return fmt.Errorf("%s: %w", u.ID, ErrNotFound)
	}
	if u.Kind == Finish || u.Kind == Renew || u.Kind == Release {
		if it.Status != StatusInProgress || it.Owner != u.Owner || it.Version != u.Version {
			return fmt.Errorf("%s (now %s by %q, version %d; had version %d): %w", u.ID, it.Status, it.Owner, it.Version, u.Version, ErrConflict)
		}
	}
	switch u.Kind {
	case Finish, Decide:
		it.settle(u.Status, u.Reason, u.At)
		if u.Result != nil {
			r := *u.Result
			r.ScoredAt = r.ScoredAt.UTC().Round(0)
			it.Result = &r
		}
	case Renew:
		it.LeaseExpires = u.At.Add(leaseOr(u.Lease))
	case Release:
		it.Status, it.Reason = StatusQueued, ""
		it.Owner, it.LeaseExpires = "", time.Time{}
		it.UpdatedAt = u.At
		it.Version++
	case Publish:
		if it.Status != StatusDone || it.Result == nil {
			return fmt.Errorf("%s (%s, result stored: %t): %w", u.ID, it.Status, it.Result != nil, ErrNoResult)
		}
		if !it.Result.PublishedAt.IsZero() {
			return fmt.Errorf("%s (published %s): %w", u.ID, it.Result.PublishedAt.Format(time.RFC3339), ErrPublished)
		}
		r := *it.Result
		r.PublishedAt = u.At.UTC().Round(0)
		it.Result = &r
		it.UpdatedAt = u.At
		it.Version++
	case Suggest:
		s := u.Suggestion.Scores
		it.Suggested, it.SuggestedReasons, it.SuggestedNotes = &s, u.Suggestion.Reasons, u.Suggestion.Notes
		if it.Status == StatusQueued {
			it.Reason = "" // offered to a person, it waits for nothing else
		}
		it.UpdatedAt = u.At
		it.Version++
	case Note:
		if it.Status != StatusQueued {
			return fmt.Errorf("%s (now %s): only a queued item is noted: %w", u.ID, it.Status, ErrConflict)
		}
		it.Reason = u.Reason
		it.UpdatedAt = u.At
		it.Version++
	}
	if it.Settled() {
		it.forgetUnread()
	}
	return nil
}

// Set records a person's decision on item id in s: one Decide update.
func Set(s Store, id, status, reason string, now time.Time) error {
	res, err := s.Update(Update{Kind: Decide, ID: id, Status: status, Reason: reason, At: now})
	if err != nil {
		return err
	}
	if res[0] != nil {
		return fmt.Errorf("set %w", res[0])
	}
	return nil
}

func leaseOr(lease time.Duration) time.Duration {
	if lease <= 0 {
		return DefaultLease
	}
	return lease
}

func (it *Item) settle(status, reason string, now time.Time) {
	it.Status, it.Reason = status, reason
	it.Owner, it.LeaseExpires = "", time.Time{}
	it.UpdatedAt = now
	it.Version++
}

func terminal(status string) bool {
	it := Item{Status: status}
	return it.Terminal()
}
