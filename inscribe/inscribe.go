// Package inscribe imports agent transcripts into the store: every raw line
// verbatim, and rounds and blocks as an index over them. It is incremental
// (a grown file is read from where the last import stopped), idempotent (a
// second import of the same bytes adds nothing) and atomic per batch (a
// crash leaves the store as it was after the last committed batch, and the
// next import carries on from there).
package inscribe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// Store is what an import needs of the store.
type Store interface {
	cairn.InscriptionStore
	cairn.LineStore
}

// Progress reports bytes done out of the total to read.
type Progress func(path string, done, total int64)

// An Importer imports transcript files of one format into a store.
type Importer struct {
	Store  Store
	Format cairn.Transcript

	// BatchBytes is how many bytes are read between commits.
	BatchBytes int
	// Progress, when set, is called after each batch.
	Progress Progress

	// Workers is how many files are imported at once (default
	// DefaultWorkers, minimum 3): most files are one batch, so only other
	// files let one file's lines be parsed and compressed while another's
	// are stored, and the store writes the batches it finds waiting in
	// one transaction (a group commit), so the more files are ready when
	// the writer is free, the fewer transactions. Files of one session are
	// never imported at once. FlightBytes bounds the bytes of the files
	// read at once (default DefaultFlightBytes): each holds its size, at
	// most two batches (one parsed while the other is stored).
	Workers     int
	FlightBytes int64

	sessions sync.Map // session ID → *sync.Mutex

	// Redact, when set, replaces secrets in each line before it is
	// parsed and stored (an import into a shared store). Positions and
	// hashes still describe the file as read, so later imports carry on;
	// the stored lines are the redacted ones.
	Redact func(raw []byte) []byte

	// Tag, when set, names the engagement and frame active while a session
	// is inscribed (for example workspace.ActiveEngagement); the rounds an
	// import adds are tagged with them unless already tagged. Tags go to
	// the index, never to the block store.
	Tag func(s *cairn.Session) (engagementID, frameID string)

	// EngagementSince and FrameSince, when set, limit Tag's engagement and
	// frame to rounds that started at or after them: importing old
	// transcripts while an engagement is active leaves their rounds
	// untagged.
	EngagementSince, FrameSince time.Time

	// Folders, when set, are the only folders transcripts are read from:
	// every file, named or found, must lie inside one of them once its
	// symlinks are resolved (a hook's transcript folders). Without them,
	// a file named is read wherever it leads, and a file found in a
	// folder only if it lies inside that folder. See [Open].
	Folders []string

	// Keep, when set, is the store's keep setting and its memory of the
	// sessions dropped on purpose: a file whose session was dropped and
	// has not changed since, or a new file last changed before the keep
	// setting's cutoff, is not read ([StatusDropped]). Now is the clock
	// the cutoff is taken from (time.Now when nil).
	Keep cairn.KeepStore
	Now  func() time.Time

	// Live is for the hooks inscribing the session they run in, which
	// the client is appending to: a file at the path stored whose size
	// and head and tail windows are as stored, and whose stored Sum is a
	// hash's state, is taken to begin with what was inscribed without its
	// prefix being read again, the hash carried on from that state (a
	// Stop hook of a 1 GB session read all of it). Every other import
	// (cairn import, serve --watch, a reindex) reads the whole prefix, so
	// an edit a live import's windows missed makes a new generation
	// there. See [windows.load].
	Live bool

	keepOnce sync.Once
	keepN    int
	keepErr  error
}

// DefaultBatchBytes balances commit overhead against memory held per batch.
const DefaultBatchBytes = 8 << 20

// DefaultWorkers and DefaultFlightBytes are an import's files read at once
// and the bytes they may hold (see [Importer.Workers]).
const (
	DefaultWorkers     = 8
	DefaultFlightBytes = 32 << 20
)

// Import imports files and the *.jsonl files under folders. Reports come
// in lexical order of path. A symlink found in a folder is followed only
// to a file inside it (or inside [Importer.Folders]), and once: a link to
// a file the folder holds anyway adds nothing; a link out of it, a FIFO
// or a device is skipped and reported with the reason ([Open]).
func (im *Importer) Import(ctx context.Context, paths []string) (*Report, error) {
	if err := sweep(ctx, im.Store); err != nil {
		return nil, err
	}
	files, err := transcriptFiles(paths, im.Folders, im.document)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	type result struct {
		fr       *FileReport
		problems []Problem
	}
	results := make([]result, len(files))
	var mu sync.Mutex // serializes Progress and guards done
	var done int64
	jobs := make(chan int)
	var wg sync.WaitGroup
	workers := im.Workers
	if workers == 0 {
		workers = DefaultWorkers
	}
	limit := im.FlightBytes
	if limit <= 0 {
		limit = DefaultFlightBytes
	}
	fl := newFlight(limit)
	hold := func(f file) int64 { return min(f.size, 2*int64(im.batchBytes())) }
	for range max(workers, 3) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				f, counted := files[i], int64(0)
				if f.skip != "" {
					results[i] = result{&FileReport{Path: f.path, Status: StatusSkipped, Error: f.skip}, nil}
					continue
				}
				advance := func(n int64) {
					mu.Lock()
					defer mu.Unlock()
					done, counted = done+n-counted, n
					if im.Progress != nil {
						im.Progress(f.path, done, total)
					}
				}
				fr, problems := im.importFile(ctx, f.path, f.within, advance)
				fl.give(hold(f), limit)
				advance(f.size)
				results[i] = result{fr, problems}
			}
		}()
	}
feed:
	for i := range files {
		if files[i].skip == "" && !fl.take(ctx, hold(files[i]), limit) {
			break
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	rep := &Report{Skipped: map[string]int{}}
	for _, r := range results {
		if r.fr != nil {
			rep.add(r.fr, r.problems)
		}
	}
	return rep, ctx.Err()
}

// ImportFile imports one file.
func (im *Importer) ImportFile(ctx context.Context, path string) (*FileReport, []Problem) {
	return im.importFile(ctx, path, im.Folders, nil)
}

func (im *Importer) importFile(ctx context.Context, path string, within []string, progress func(int64)) (*FileReport, []Problem) {
	fr := &FileReport{Path: path}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	var problems []Problem
	for attempt := 1; ; attempt++ {
		try := &FileReport{Path: fr.Path}
		p, err := im.inscribe(ctx, path, within, try, progress)
		problems = append(problems, p...)
		fr.merge(try, err == nil)
		if err == nil {
			return fr, problems
		}
		// Another import stored this session's lines first, or the file
		// changed while it was read: start again from what is stored now.
		// Each lost race means another import made progress, so this ends.
		again := errors.Is(err, cairn.ErrStale) || errors.Is(err, errChanged)
		if again && attempt < maxAttempts && ctx.Err() == nil {
			time.Sleep(time.Duration(rand.IntN(attempt*2+1)) * time.Millisecond)
			continue
		}
		if errors.Is(err, errChanged) {
			err = fmt.Errorf("the file kept changing while it was read (%d attempts); import it again once it is written", attempt)
		}
		fr.Status, fr.Error = StatusFailed, errorText(err)
		if errors.Is(err, ErrRefused) {
			fr.Status = StatusSkipped
		}
		return fr, problems
	}
}

// maxAttempts bounds how often one file is read again after a lost race
// or a change under the import.
const maxAttempts = 50

// errChanged says the file changed under an import between reading a batch
// and storing it: replaced, truncated or rewritten in place.
var errChanged = errors.New("file changed while it was read")

// errorText is what a person reads for err in a report: a domain error's
// message after its context ("line 12: …"), any other error as it is.
func errorText(err error) string {
	var e *cairn.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	if text := err.Error(); strings.HasPrefix(text, "line ") {
		if i := strings.Index(text, ": "); i > 0 {
			return text[:i+2] + e.Message
		}
	}
	return e.Message
}

func (im *Importer) inscribe(ctx context.Context, path string, within []string, fr *FileReport, progress func(int64)) ([]Problem, error) {
	f, err := Open(path, within)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()

	head, err := headLines(f)
	if err != nil {
		return nil, err
	}
	sess, err := im.Format.Identify(path, head)
	if err != nil {
		return nil, err
	}
	dup, known, unlock, err := im.claim(ctx, f, path, size, sess)
	if err != nil {
		return nil, err
	}
	defer unlock()
	fr.SessionID = sess.ID
	if dup {
		fr.Status = StatusDuplicate
		return nil, nil
	}
	if why, err := im.keeps(ctx, sess, info.ModTime()); err != nil {
		return nil, err
	} else if why != "" {
		fr.Status, fr.Error = StatusDropped, why
		return nil, nil
	}

	var prev *cairn.Source // the stored position this import continues from
	win := &windows{}
	src := known
	if src == nil {
		src, err = im.Store.FindSource(ctx, sess.ID)
	}
	switch {
	case cairn.ErrorCode(err) == cairn.ENOTFOUND:
		src, prev, fr.Status = &cairn.Source{SessionID: sess.ID}, &cairn.Source{}, StatusNew
	case err != nil:
		return nil, err
	default:
		if src.Agent == cairn.AgentClaudeCode && sess.Agent != cairn.AgentClaudeCode {
			// Stored under Claude Code's rules, the reader of last
			// resort (an older cairn's serve --watch read every file
			// so): rebuilt from its lines as the harness's that wrote it.
			if err := im.Store.ReindexSession(ctx, sess, Rebuild(im.Format)); err != nil {
				return nil, err
			}
			fr.Note = fmt.Sprintf("stored as %s's, rebuilt as %s's", src.Agent, sess.Agent)
		}
		stored := *src
		prev, fr.Status = &stored, StatusAppended
		same, err := win.load(f, size, src, im.Live && src.Path == path)
		if err != nil {
			return nil, err
		}
		if resolvedElsewhere(same, src, path) {
			return nil, cairn.ErrStale
		}
		if !same && size < src.Offset && im.appendOnly(sess, path) {
			if kept, err := im.shrank(ctx, f, size, src, fr); err != nil || kept {
				return nil, err
			}
		}
		if !same {
			fr.Status = StatusRewritten
			src, win = &cairn.Source{SessionID: sess.ID, Generation: src.Generation + 1}, &windows{}
		} else if size == src.Offset {
			fr.Status = StatusUnchanged
			return nil, im.moved(ctx, sess, src, path)
		}
	}
	src.Path = path

	r := &run{im: im, f: f, info: info, path: path, sess: sess, src: src, prev: prev, win: win, fr: fr,
		reset: fr.Status == StatusRewritten, progress: progress}
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	if err := r.read(ctx, size); err != nil {
		return r.committedProblems(), err
	}
	fr.Rounds = r.lastSeq
	return r.problems, nil
}

// moved records path as where the session src stores is read from, when
// its file moved with nothing new in it: the session shows where it is
// now, and the next import finds it by its path.
func (im *Importer) moved(ctx context.Context, sess *cairn.Session, src *cairn.Source, path string) error {
	if src.Path == path {
		return nil
	}
	seq := 0
	if last, err := im.Store.LastRound(ctx, sess.ID); err == nil {
		seq = last.Seq
	} else if cairn.ErrorCode(err) != cairn.ENOTFOUND {
		return err
	}
	stored := *src
	at := *src
	at.Path = path
	return im.Store.Inscribe(ctx, &cairn.Inscription{Session: sess, Source: at, Prev: &stored, FromSeq: seq + 1})
}

// headLines returns the complete lines in the first HeadSize bytes, enough
// to identify the session.
func headLines(f *os.File) ([][]byte, error) {
	buf := make([]byte, cairn.HeadSize)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	lines := bytes.SplitAfter(buf[:n], []byte("\n"))
	if n == len(buf) && len(lines) > 1 {
		lines = lines[:len(lines)-1]
	}
	return lines, nil
}

// run is one file's import in progress.
type run struct {
	im       *Importer
	f        *os.File
	info     os.FileInfo // f when opened: its identity is checked at each commit
	path     string
	sess     *cairn.Session
	src      *cairn.Source
	prev     *cairn.Source // the stored position the next commit continues from
	win      *windows      // the bytes before the read position that hashes cover
	fr       *FileReport
	reset    bool
	progress func(int64)

	builder  cairn.RoundBuilder
	fromSeq  int
	lastSeq  int           // the store's last round, as of the last commit
	replayed []*cairn.Line // the stored lines start replayed, the first commit's Stored
	problems []Problem     // written by the parsing goroutine, read after it ends
}

// start prepares the builder: for an append, it replays the stored lines of
// the session's last round so that round is rebuilt with the new lines.
func (r *run) start(ctx context.Context) error {
	if r.reset || r.src.Offset == 0 {
		r.builder = r.im.Format.NewBuilder(r.sess, 0)
		return nil
	}
	from := 1
	last, err := r.im.Store.LastRound(ctx, r.sess.ID)
	if err == nil {
		r.fromSeq, r.lastSeq, from = last.Seq, last.Seq, last.FirstLine
	} else if cairn.ErrorCode(err) != cairn.ENOTFOUND {
		return err
	}
	r.builder = r.im.Format.NewBuilder(r.sess, r.fromSeq)
	replay, err := r.im.Store.FindLines(ctx, r.sess.ID, from, 0)
	if err != nil {
		return err
	}
	for _, l := range replay {
		r.builder.Add(l)
	}
	r.replayed = replay
	return nil
}

// A batch is the lines read between two commits and the rounds they
// touch.
type batch struct {
	session  cairn.Session // as parsed up to the batch's end
	lines    []*cairn.Line
	bytes    int
	offset   int64 // file offset after the batch
	count    int   // lines in the file after the batch
	fromSeq  int
	rounds   []*cairn.Round
	blocks   iter.Seq[[]*cairn.Block]
	messages []*cairn.MessageUsage

	// Hashes of the bytes read before offset: the first HeadSize and the
	// last TailSize, and all of them (cairn.Source's HeadHash, TailHash
	// and Sum), and the windows hashed, which the file must still hold
	// when the batch is stored.
	headHash, tailHash, sum []byte
	win                     windows
}

// read reads from the stored offset to size. Parsing and storing overlap:
// one goroutine reads and builds batches of BatchBytes, the caller's
// goroutine commits them in order.
func (r *run) read(ctx context.Context, size int64) error {
	batches := make(chan *batch, 1)
	errc := make(chan error, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(batches)
		errc <- r.parse(ctx, size, batches)
	}()
	var err error
	for b := range batches {
		if err == nil {
			err = r.commit(ctx, b)
		}
		if err != nil {
			cancel()
		}
	}
	if perr := <-errc; err == nil && perr != context.Canceled {
		err = perr
	}
	return err
}

// batchBytes is BatchBytes or its default.
func (im *Importer) batchBytes() int {
	if im.BatchBytes <= 0 {
		return DefaultBatchBytes
	}
	return im.BatchBytes
}

func (r *run) parse(ctx context.Context, size int64, out chan<- *batch) error {
	batchBytes := r.im.batchBytes()
	offset, count, fromSeq := r.src.Offset, r.src.Lines, r.fromSeq
	lr := newLineReader(io.NewSectionReader(r.f, offset, size-offset))
	defer lr.close()
	b := &batch{}
	flush := func() bool {
		b.offset, b.count, b.fromSeq = offset, count, fromSeq
		b.headHash, b.tailHash, b.sum = r.win.sums()
		b.win = r.win.snapshot()
		b.rounds, b.blocks, b.messages = r.builder.Finish()
		// The builder goes on filling in the session (title, project) while
		// the batch is stored: the batch carries a copy.
		b.session = *r.sess
		if len(b.rounds) > 0 {
			fromSeq = b.rounds[len(b.rounds)-1].Seq
		}
		select {
		case out <- b:
			b = &batch{}
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		raw, err := lr.next()
		if len(raw) > 0 && raw[len(raw)-1] != '\n' && !(err == io.EOF && r.im.complete(r.path, raw)) {
			// The client is still writing this line (even a line that
			// parses may be cut short: its terminator comes last): it is
			// read again, whole, by the next import.
			r.fr.Pending++
			break
		}
		if len(raw) > 0 {
			r.win.add(raw)
			count++
			stored := raw
			if r.im.Redact != nil {
				stored = r.im.Redact(raw)
			}
			l := &cairn.Line{SessionID: r.sess.ID, No: count, Offset: offset, Raw: stored}
			if p := r.builder.Add(l); p != "" {
				r.problems = append(r.problems, Problem{Path: r.fr.Path, Line: l.No, Reason: p})
			}
			b.lines = append(b.lines, l)
			offset += int64(len(raw))
			b.bytes += len(raw)
			r.fr.Read++
		}
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		if b.bytes >= batchBytes && !flush() {
			return ctx.Err()
		}
	}
	if !flush() {
		return ctx.Err()
	}
	return nil
}

// commit stores one batch with the source position after it. The first
// commit of a new or rewritten file is made even when it has no lines, so
// the session exists.
func (r *run) commit(ctx context.Context, b *batch) error {
	if len(b.lines) == 0 && !r.reset {
		if r.fr.Status == StatusNew && r.fr.Stored == 0 {
			r.fr.Status = StatusEmpty // no session until it has a line
		}
		return nil
	}
	if err := r.unchanged(b); err != nil {
		return err
	}
	src := *r.src
	src.Offset, src.Lines, src.HeadHash, src.TailHash, src.Sum = b.offset, b.count, b.headHash, b.tailHash, b.sum
	in := &cairn.Inscription{
		Session: &b.session, Source: src, Prev: r.prev, Reset: r.reset, Lines: b.lines,
		FromSeq: b.fromSeq, Rounds: b.rounds, BlockSeq: b.blocks, Messages: b.messages,
		Stored: r.replayed,
	}
	if r.im.Tag != nil {
		in.EngagementID, in.FrameID = r.im.Tag(r.sess)
		in.EngagementSince, in.FrameSince = r.im.EngagementSince, r.im.FrameSince
	}
	if err := r.im.Store.Inscribe(ctx, in); err != nil {
		return fmt.Errorf("line %d: %w", b.count, err)
	}
	// The store may have raised a new generation past older ones.
	*r.src = in.Source
	stored := in.Source
	r.prev = &stored
	if len(b.rounds) > 0 {
		last := *b.rounds[len(b.rounds)-1]
		last.Blocks = nil
		r.lastSeq, r.fr.Last = last.Seq, &last
	}
	r.fr.Stored += len(b.lines)
	r.fr.Bytes += int64(b.bytes)
	r.reset, r.replayed = false, nil
	if r.progress != nil {
		r.progress(b.offset)
	}
	return nil
}

// document reports whether the format reads the file at path as one JSON
// document ([cairn.Documents]).
// shrank handles an append-only file found shorter than what src stores
// ([cairn.AppendOnly]): one that is the stored bytes' beginning holds
// nothing the store lacks, and what was stored is kept (kept, fr says
// so); any other was written again by the client, and is read as a new
// generation, fr saying so too.
func (im *Importer) shrank(ctx context.Context, f *os.File, size int64, src *cairn.Source, fr *FileReport) (kept bool, err error) {
	cut, err := im.storedPrefix(ctx, f, size, src)
	if err != nil {
		return false, err
	}
	if !cut {
		fr.Note = fmt.Sprintf("%d bytes, shorter than the %d stored and not their beginning: the client wrote the file again; read as a new generation, the stored one's lines kept in the store", size, src.Offset)
		return false, nil
	}
	rounds := 0
	if last, err := im.Store.LastRound(ctx, src.SessionID); err == nil {
		rounds = last.Seq
	} else if cairn.ErrorCode(err) != cairn.ENOTFOUND {
		return false, err
	}
	fr.Status, fr.Rounds = StatusKept, rounds
	fr.Note = fmt.Sprintf("%d bytes, shorter than the %d stored and their beginning: the client wrote the file again without its end; what was stored (%s) is kept", size, src.Offset, plural(rounds, "round"))
	return true, nil
}

// appendOnly reports whether the file at path, of session s, is one the
// client only appends to ([cairn.AppendOnly]).
func (im *Importer) appendOnly(s *cairn.Session, path string) bool {
	a, ok := im.Format.(cairn.AppendOnly)
	return ok && a.AppendOnly(s, path)
}

func (im *Importer) document(path string) bool {
	d, ok := im.Format.(cairn.Documents)
	return ok && d.Document(path)
}

// complete reports whether last, the unterminated end of the file at path,
// closes a document: it is then a line, not one still being written.
func (im *Importer) complete(path string, last []byte) bool {
	d, ok := im.Format.(cairn.Documents)
	return ok && d.Document(path) && d.Complete(last)
}
