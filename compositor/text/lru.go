package text

import (
	"container/list"
	"sync"
)

// lru is a small concurrency-safe least-recently-used cache bounded by item count and by
// the total cost of its items (bytes, for images).
type lru[K comparable, V any] struct {
	mu      sync.Mutex
	max     int
	maxCost int64
	cost    func(V) int64
	total   int64
	order   *list.List
	items   map[K]*list.Element
}

type lruItem[K comparable, V any] struct {
	key  K
	val  V
	cost int64
}

// newLRU returns a cache holding at most max items whose costs add up to at most maxCost;
// cost may be nil when only the count matters.
func newLRU[K comparable, V any](max int, maxCost int64, cost func(V) int64) *lru[K, V] {
	return &lru[K, V]{max: max, maxCost: maxCost, cost: cost, order: list.New(), items: map[K]*list.Element{}}
}

// get returns the cached value for k and marks it recently used.
func (c *lru[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*lruItem[K, V]).val, true
	}
	var zero V
	return zero, false
}

// put stores v under k, evicting the least recently used item when full.
func (c *lru[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cost int64
	if c.cost != nil {
		cost = c.cost(v)
	}
	if el, ok := c.items[k]; ok {
		it := el.Value.(*lruItem[K, V])
		c.total += cost - it.cost
		it.val, it.cost = v, cost
		c.order.MoveToFront(el)
	} else {
		c.items[k] = c.order.PushFront(&lruItem[K, V]{k, v, cost})
		c.total += cost
	}
	for c.order.Len() > 1 && (c.order.Len() > c.max || (c.maxCost > 0 && c.total > c.maxCost)) {
		last := c.order.Back()
		it := last.Value.(*lruItem[K, V])
		c.order.Remove(last)
		delete(c.items, it.key)
		c.total -= it.cost
	}
}

// clear drops every item.
func (c *lru[K, V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	c.items = map[K]*list.Element{}
	c.total = 0
}

// len returns the number of cached items.
func (c *lru[K, V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
