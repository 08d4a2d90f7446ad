package static

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestServeAnswersAsAStaticHost(t *testing.T) {
	body := []byte("hello")
	rec := httptest.NewRecorder()
	if n := Serve(rec, httptest.NewRequest("GET", "/f", nil), body); n != 5 || rec.Code != 200 {
		t.Fatalf("first GET: %d bytes, status %d", n, rec.Code)
	}
	etag := rec.Header().Get("ETag")
	req := httptest.NewRequest("GET", "/f", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	if n := Serve(rec, req, body); n != 0 || rec.Code != http.StatusNotModified {
		t.Errorf("conditional GET: %d bytes, status %d, want 0 and 304", n, rec.Code)
	}
	rec = httptest.NewRecorder()
	if n := Serve(rec, httptest.NewRequest("GET", "/g", nil), nil); n != 0 || rec.Code != http.StatusNotFound {
		t.Errorf("missing file: %d bytes, status %d, want 0 and 404", n, rec.Code)
	}
}
