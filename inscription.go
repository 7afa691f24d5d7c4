package cairn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"time"
)

// A Source is how far a session's transcript file has been inscribed, so a
// re-import reads only new bytes and notices a file that was rewritten.
type Source struct {
	SessionID  string
	Agent      string // the session's harness, as stored (FindSource fills it)
	Path       string
	Offset     int64  // bytes inscribed; the next import starts here
	Lines      int    // lines inscribed
	HeadHash   []byte // hash of the file's first bytes (up to HeadSize)
	TailHash   []byte // hash of the bytes just before Offset (up to TailSize)
	Generation int    // bumped each time a rewritten file is re-inscribed

	// Sum is the SHA-256 of the bytes before Offset, as read: either its
	// digest (32 bytes, what stores written before kept) or, longer, the
	// hash's state (crypto/sha256's MarshalBinary) after the prefix's
	// whole 64-byte blocks, the bytes after them being TailHash's, from
	// which a hook's import carries the hash on without reading the
	// prefix again; nil if inscribed before sums were kept. Only package
	// inscribe reads it; stores keep its bytes as they are.
	Sum []byte
}

// A SourceKey is what identifies a session read from a transcript: the
// harness that wrote it (a Session's Agent), the id the harness gave it,
// and the file it was read from. Two files with one id (a backup beside
// the live folder, a copy on another disk) are two sources: the first
// inscribed keeps the id, another gets [SourceKey.CopyID], unless it
// holds nothing the first does not (then it is not stored twice).
type SourceKey struct {
	Agent string
	ID    string
	Path  string
}

// CopyID is the session ID of a source whose id another file already
// holds: the id, "~" and eight hex digits of a hash of the harness and
// path, the same at every import of that file.
func (k SourceKey) CopyID() string {
	h := sha256.Sum256([]byte(k.Agent + "\x00" + k.Path))
	return k.ID + "~" + hex.EncodeToString(h[:4])
}

// Sizes of the hashed windows that detect a file replaced or rewritten
// while it is read, without reading all of it (a re-import checks [Source.Sum]).
const (
	HeadSize = 64 << 10
	TailSize = 64 << 10
)

// An Inscription is one atomic append to the store: new lines, and the
// rounds from FromSeq onwards rebuilt to include them. It is written in one
// transaction with the source position, so a crash leaves either all of it
// or none.
type Inscription struct {
	Session *Session // identity and metadata; counts are recomputed by the store
	Source  Source   // position after this inscription

	// Prev, when set, is the position this inscription continues from, as
	// the importer found it before reading the file (zero for a session
	// never inscribed). The store checks it inside its write transaction
	// and refuses the inscription with [ErrStale] when the stored position
	// is another: a concurrent import moved it on, so this one must start
	// again from what is stored now. Nil skips the check (a copy).
	Prev *Source

	// Reset discards the session's index and starts a new generation of
	// lines: the file was rewritten. Older generations stay in the store.
	// The store raises Source.Generation past every generation it holds
	// (and sets it in the inscription), so a new generation never meets
	// the lines of an older one.
	Reset bool

	Lines []*Line // new lines only

	// Stored, when set, is lines already stored that the replacing
	// rounds hold (the replayed last round's, as the importer read them
	// at Prev): a store may take their raw bytes for the blocks' views
	// rather than read them again in its transaction. A line it lacks is
	// read from the store.
	Stored []*Line

	FromSeq  int             // rounds with Seq >= FromSeq are replaced
	Rounds   []*Round        // the replacing rounds
	Blocks   []*Block        // blocks of the replacing rounds, unless BlockSeq is set
	Messages []*MessageUsage // usage of API messages in the replacing rounds

	// BlockSeq, when set, yields the blocks of the replacing rounds in
	// place of Blocks: in order, a bounded slice at a time, decoded as
	// the store asks for them, so that a message of a million blocks is
	// never held whole (a [RoundBuilder]'s blocks). It may be ranged over
	// more than once: a store that runs its transaction again writes them
	// again. A store keeps a yielded block no longer than it needs it.
	BlockSeq iter.Seq[[]*Block]

	// EngagementID and FrameID, when set, tag the replacing rounds that
	// have no tag yet (auto-tagging while an engagement is active), each
	// only on rounds that started at or after its Since time, when set:
	// rounds from before an engagement or frame began are not its work.
	EngagementID    string
	FrameID         string
	EngagementSince time.Time
	FrameSince      time.Time
}

// AllBlocks returns the blocks of the replacing rounds: BlockSeq, or
// Blocks as one slice.
func (in *Inscription) AllBlocks() iter.Seq[[]*Block] {
	if in.BlockSeq != nil {
		return in.BlockSeq
	}
	return BlockSlices(in.Blocks)
}

// BlockSlices returns blocks as a sequence of one slice, none if empty.
func BlockSlices(blocks []*Block) iter.Seq[[]*Block] {
	return func(yield func([]*Block) bool) {
		if len(blocks) > 0 {
			yield(blocks)
		}
	}
}

// CollectBlocks returns every block seq yields, in one slice.
func CollectBlocks(seq iter.Seq[[]*Block]) []*Block {
	var all []*Block
	for s := range seq {
		all = append(all, s...)
	}
	return all
}

// A RoundTag is the engagement and frame one round is tagged with.
type RoundTag struct {
	SessionID    string
	Seq          int
	EngagementID string
	FrameID      string
}

// AutoTags returns the tags the inscription gives its rounds (round 0, the
// preamble, never has one): the engagement and frame of each round that
// started at or after their Since times.
func (in *Inscription) AutoTags() []RoundTag {
	if in.EngagementID == "" && in.FrameID == "" {
		return nil
	}
	var tags []RoundTag
	for _, r := range in.Rounds {
		if r.Seq == 0 {
			continue
		}
		t := RoundTag{SessionID: r.SessionID, Seq: r.Seq}
		if in.EngagementID != "" && !r.StartedAt.Before(in.EngagementSince) {
			t.EngagementID = in.EngagementID
		}
		if in.FrameID != "" && !r.StartedAt.Before(in.FrameSince) {
			t.FrameID = in.FrameID
		}
		if t.EngagementID != "" || t.FrameID != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

// ErrStale is what [InscriptionStore.Inscribe] returns when an
// inscription's Prev is no longer the stored position: another import got
// there first. The importer starts over from the stored position; a person
// never sees it.
var ErrStale = &Error{Code: ECONFLICT, Message: "Another import of this session stored new lines first; import again."}

// SamePosition reports whether a stored source is at the position p
// continues from: same generation, offset and line count. A missing
// source (nil) is at the zero position.
func (p *Source) SamePosition(stored *Source) bool {
	if stored == nil {
		stored = &Source{}
	}
	return p.Generation == stored.Generation && p.Offset == stored.Offset && p.Lines == stored.Lines
}

// MessageUsage is the usage one API message reported; a message spans
// several lines that each repeat it, so usage is counted once per message.
type MessageUsage struct {
	MessageID string
	RoundSeq  int
	Model     string
	Usage     Usage
}

// InscriptionStore is the block store's write side.
type InscriptionStore interface {
	// FindSource returns how far a session has been inscribed. Returns
	// ENOTFOUND if it never was.
	FindSource(ctx context.Context, sessionID string) (*Source, error)

	// FindSourceByPath returns the source last read from path, so a file
	// keeps its session whatever its first lines said. Returns ENOTFOUND if
	// no session was read from path.
	FindSourceByPath(ctx context.Context, path string) (*Source, error)

	// FindCopies returns the sources of the sessions stored under copy ids
	// of id ([SourceKey.CopyID]), none if there are none.
	FindCopies(ctx context.Context, id string) ([]*Source, error)

	// Inscribe appends one inscription atomically.
	Inscribe(ctx context.Context, in *Inscription) error

	// LockSession makes importers of one session take turns, across
	// processes, from reading the stored position to their last commit:
	// the loser of a race waits, then finds the work done. It returns when
	// the lock is held or ctx ends. Correctness does not rest on it (an
	// inscription's Prev does that); it spares the loser reading again.
	LockSession(ctx context.Context, sessionID string) (unlock func(), err error)

	// LastRound returns a session's highest round, ENOTFOUND if it has none.
	LastRound(ctx context.Context, sessionID string) (*Round, error)

	// ReindexSession rebuilds one session's index from its stored lines
	// with rebuild, which receives the session and its current lines and
	// returns the inscription to store in place of its index. Returns a
	// [Damaged] (under an [Error] that says what to do) and leaves the
	// index as it was if the session's stored lines cannot be read back;
	// an error of rebuild's is returned untranslated. The rule for a whole
	// store, damaged sessions included, is inscribe.Reindex's.
	ReindexSession(ctx context.Context, s *Session, rebuild func(s *Session, lines []*Line) (*Inscription, error)) error

	// Reread sets a session's source position back to nothing read, so
	// that the next import of its file stores it whole as a new
	// generation (its stored position no longer matches the file), in
	// place of stored lines that cannot be read back. Only the position
	// changes: no line is touched.
	Reread(ctx context.Context, sessionID string) error
}

// Transcript reads one agent's transcript format.
type Transcript interface {
	// Identify names the session a file holds from its path and first lines.
	Identify(path string, head [][]byte) (*Session, error)

	// NewBuilder returns a builder for s whose first round is fromSeq (0
	// for a whole file). To continue an import, the caller replays the
	// stored lines of round fromSeq, then adds the new ones: the rounds
	// built are exactly those a full read would build.
	NewBuilder(s *Session, fromSeq int) RoundBuilder
}

// A RoundBuilder turns lines into rounds and blocks, in file order.
type RoundBuilder interface {
	// Add parses l.Raw, sets l's parsed fields and returns a problem to
	// report, if any; the line is stored whatever the problem.
	Add(l *Line) (problem string)

	// Finish returns the rounds, blocks and message usage built so far.
	// The blocks come as a sequence of slices ([Inscription.BlockSeq]);
	// [CollectBlocks] gathers them. Lines added after Finish do not change
	// what it returned.
	Finish() ([]*Round, iter.Seq[[]*Block], []*MessageUsage)
}

// Documents is what a [Transcript] also implements when some of its files
// are one JSON document the client rewrites whole (Gemini CLI's older
// session-*.json): an import walking a folder reads them beside *.jsonl,
// and takes their last line, which has no terminator, once it closes the
// document. Each rewrite is inscribed as a new generation.
type Documents interface {
	// Document reports whether the file at path is such a document.
	Document(path string) bool
	// Complete reports whether an unterminated last line ends a document.
	Complete(last []byte) bool
}

// AppendOnly is a [Transcript] some of whose files the client only ever
// appends to (Gemini CLI's JSONL sessions): one found shorter than what
// was stored, and the stored lines' beginning, lost what the client had
// written, not what cairn keeps. An import keeps what was stored and
// says so, where it would read any other file as rewritten (a new
// generation of only its bytes).
type AppendOnly interface {
	// AppendOnly reports whether the file at path, of session s (as
	// Identify gave it), is such a file.
	AppendOnly(s *Session, path string) bool
}
