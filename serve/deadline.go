package serve

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// ErrShuttingDown is the cause a server gives the contexts of its
// requests (http.Server.BaseContext, cancelled with
// context.CancelCauseFunc) when it stops them to shut down: the API
// routes then answer 503 saying so, instead of leaving the client with
// an empty reply, and the work they started stops within a batch.
var ErrShuttingDown = errors.New("the server is shutting down")

// bodyDeadline gives a request that has a body d to send it: the
// connection's read deadline is set when its headers are read (the API
// routes clear it once they have read the body, readBody). A route that
// reads no body leaves it set, so the server's drain of an unread body
// after the reply is cut too. Where deadlines are not supported (the
// Worker), nothing changes.
func bodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}

// readBody reads r's body whole, at most limit bytes (a
// *http.MaxBytesError beyond), within the deadline bodyDeadline set (a
// net.Error whose Timeout is true beyond), then clears the deadline: the
// server's background read of the idle connection, which cancels the
// request's context when the client leaves, must not take the deadline
// for a departure while the request runs.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	size := 512
	if r.ContentLength > 0 {
		size = int(min(r.ContentLength, limit)) + 1
	}
	buf := make([]byte, 0, size)
	for br := http.MaxBytesReader(w, r.Body, limit); ; {
		n, err := br.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	return buf, nil
}
