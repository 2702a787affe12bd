// A local S3-compatible server for the object-store benchmark (scripts/bench-store.py): the
// gofakes3 library's handlers over its in-memory backend, serving far more requests per
// second than moto's Python server on the same cores.
//
// gofakes3 keeps one ETag per object, the MD5 of its bytes, even for a multipart upload
// (whose ETag it answers CompleteMultipartUpload with, as S3 does, `MD5-of-part-MD5s-N`).
// S3 lists and heads a multipart object with that `-N` ETag, and the benchmark's point is
// that verify reproduces it, so this wrapper keeps the ETag each completed upload was
// answered with and shows it in listings, HeadObject and GetObject until the key is written
// or deleted again.
//
//	go build -o target/s3-server ./scripts/s3-server  # scripts/build-s3-server.sh
//	target/s3-server -addr 127.0.0.1:9000
package main

import (
	"bytes"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// store is gofakes3's in-memory backend with the multipart ETags of completed uploads.
type store struct {
	*s3mem.Backend
	mu    sync.RWMutex
	etags map[string]string // "bucket/key" -> quoted ETag
}

func (s *store) multipart(bucket, key string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	etag, ok := s.etags[bucket+"/"+key]
	return etag, ok
}

func (s *store) set(bucket, key, etag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if etag == "" {
		delete(s.etags, bucket+"/"+key)
	} else {
		s.etags[bucket+"/"+key] = etag
	}
}

// PutObject also stores a completed upload's bytes (before its ETag is recorded): either way
// the key's earlier multipart ETag is gone.
func (s *store) PutObject(bucket, key string, meta map[string]string, input io.Reader, size int64, conditions *gofakes3.PutConditions) (gofakes3.PutObjectResult, error) {
	s.set(bucket, key, "")
	return s.Backend.PutObject(bucket, key, meta, input, size, conditions)
}

// CopyObject writes through this store's PutObject (s3mem's own would bypass it).
func (s *store) CopyObject(srcBucket, srcKey, dstBucket, dstKey string, meta map[string]string) (gofakes3.CopyObjectResult, error) {
	return gofakes3.CopyObject(s, srcBucket, srcKey, dstBucket, dstKey, meta)
}

func (s *store) DeleteObject(bucket, key string) (gofakes3.ObjectDeleteResult, error) {
	s.set(bucket, key, "")
	return s.Backend.DeleteObject(bucket, key)
}

func (s *store) DeleteMulti(bucket string, keys ...string) (gofakes3.MultiDeleteResult, error) {
	for _, key := range keys {
		s.set(bucket, key, "")
	}
	return s.Backend.DeleteMulti(bucket, keys...)
}

func (s *store) ListBucket(bucket string, prefix *gofakes3.Prefix, page gofakes3.ListBucketPage) (*gofakes3.ObjectList, error) {
	list, err := s.Backend.ListBucket(bucket, prefix, page)
	if err != nil {
		return list, err
	}
	for _, item := range list.Contents {
		if etag, ok := s.multipart(bucket, item.Key); ok {
			item.ETag = etag
		}
	}
	return list, nil
}

var completedETag = regexp.MustCompile(`<ETag>([^<]*)</ETag>`)

// recorder holds a response back until the handler is done (a completed upload's ETag is in
// its body), or rewrites an object's ETag header before it is sent.
type recorder struct {
	http.ResponseWriter
	etag   string // the ETag header to send instead, if any
	buffer *bytes.Buffer
	status int
}

func (r *recorder) WriteHeader(status int) {
	if r.buffer != nil {
		r.status = status
		return
	}
	r.status = status
	r.replaceETag()
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) replaceETag() {
	if r.etag != "" && r.Header().Get("ETag") != "" {
		r.Header().Set("ETag", r.etag)
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.buffer != nil {
		return r.buffer.Write(p)
	}
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(p)
}

func withMultipartETags(s *store, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Path-style addressing: /bucket/key.
		bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		query := r.URL.Query()
		switch {
		case key != "" && r.Method == http.MethodPost && query.Has("uploadId"):
			rec := &recorder{ResponseWriter: w, buffer: &bytes.Buffer{}, status: http.StatusOK}
			next.ServeHTTP(rec, r)
			if m := completedETag.FindSubmatch(rec.buffer.Bytes()); rec.status == http.StatusOK && m != nil {
				etag := strings.ReplaceAll(string(m[1]), "&#34;", `"`)
				etag = strings.ReplaceAll(etag, "&quot;", `"`)
				s.set(bucket, key, etag)
			}
			w.WriteHeader(rec.status)
			w.Write(rec.buffer.Bytes())
		case key != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			etag, _ := s.multipart(bucket, key)
			rec := &recorder{ResponseWriter: w, etag: etag}
			next.ServeHTTP(rec, r)
			if rec.status == 0 {
				// A HEAD's headers go out when the handler returns, unwritten.
				rec.replaceETag()
			}
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "address to listen on (port 0: any free port, printed)")
	flag.Parse()
	s := &store{Backend: s3mem.New(), etags: map[string]string{}}
	faker := gofakes3.New(s, gofakes3.WithoutVersioning(), gofakes3.WithLogger(gofakes3.DiscardLog()))
	listener, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on %s", listener.Addr())
	log.Fatal(http.Serve(listener, withMultipartETags(s, faker.Server())))
}
