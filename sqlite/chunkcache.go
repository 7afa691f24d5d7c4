package sqlite

import (
	"container/list"
	"sync"
)

// A chunkCache keeps the raw bytes of the chunks a process read last. A
// chunk never changes once written (the in-place rewrite recompresses the
// same bytes), so a copy stays right for as long as the process lives.
// Reading a long session decompresses all of its chunks, and revive
// reads them twice, once for the lines and once for the block texts
// that view them: the second read is then free.
type chunkCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // of *cachedChunk, most recent first
	byID  map[int64]*list.Element
}

type cachedChunk struct {
	id   int64
	data []byte
}

// chunkCacheBytes bounds the raw bytes a DB keeps: a long session's.
const chunkCacheBytes = 16 << 20

// get returns chunk id's raw bytes, if kept. The lines read from them
// share them, as lines read from one chunk always shared its bytes: no
// reader changes a line's raw bytes (their capacity ends where they do,
// so an append copies).
func (c *chunkCache) get(id int64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedChunk).data, true
}

// drop forgets every chunk.
func (c *chunkCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byID, c.order, c.size = nil, nil, 0
}

// put keeps data, chunk id's raw bytes; a chunk larger than a quarter of
// the cache is not kept.
func (c *chunkCache) put(id int64, data []byte) {
	if len(data) > chunkCacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID, c.order, c.max = map[int64]*list.Element{}, list.New(), chunkCacheBytes
	}
	if _, ok := c.byID[id]; ok {
		return
	}
	c.byID[id] = c.order.PushFront(&cachedChunk{id, data})
	c.size += len(data)
	for c.size > c.max {
		e := c.order.Back()
		old := e.Value.(*cachedChunk)
		c.order.Remove(e)
		delete(c.byID, old.id)
		c.size -= len(old.data)
	}
}
