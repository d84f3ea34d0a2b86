"""What a preempted request finds of its own KV cache when it is admitted again (vLLM V1 with prefix caching).

vLLM V1 frees a preempted request's blocks into the prefix cache's free queue; they keep their hashes until the block
is handed to another allocation, so the request, admitted again with nothing computed, looks itself up in the cache
like any new request and finds the leading full blocks of its prompt and of the output it had produced that are still
there. Read in the 0.11.0 wheel (the release most fidelity points ran) and the 0.33.0 one (the release the stacks pin):

* preemption frees the request's blocks and sets its computed tokens to 0: 0.11.0 v1/core/sched/scheduler.py 273-276
  (``kv_cache_manager.free(preempted_req)``, ``num_computed_tokens = 0``); 0.33.0 ``_preempt_request`` 1817-1822
  (``_free_request_blocks`` 3084-3093: ``kv_cache_manager.free``, deferred while a step in flight may still write
  them);
* a waiting request with no computed tokens, a preempted one included, is looked up in the cache: 0.11.0
  scheduler.py 380-384, 0.33.0 1110-1127 and 664-674 (``if request.num_computed_tokens == 0``: ``get_computed_blocks``),
  which finds the longest run of cached leading full blocks, at most the request's tokens less one (0.11.0
  v1/core/kv_cache_manager.py 180, 0.33.0 302: ``max_cache_hit_length = request.num_tokens - 1``); its tokens are its
  prompt and its output so far, and output tokens' full blocks are hashed and cached as they are computed (0.11.0
  v1/request.py 162 and kv_cache_manager.py 300-302; 0.33.0 request.py 283-288 and kv_cache_manager.py 621-625);
* the free blocks are one queue, least recently used at the front (0.11.0 v1/core/kv_cache_utils.py 225-230, 0.33.0
  267-269); an allocation takes blocks from the front and evicts what they cached (0.11.0 v1/core/block_pool.py
  ``get_new_blocks`` 272-277, 0.33.0 721-729); a freed request's blocks join the back, its last block first, "so that
  the tail blocks are freed first" (0.11.0 v1/core/single_type_kv_cache_manager.py 166-170, 0.33.0 598-599; 0.11.0
  block_pool.py ``free_blocks`` 338-352 appends them, 0.33.0 816-847 appends the hashed ones and puts an unhashed
  one, the partly filled last block, at the front).

So at the preemption every block free then stands ahead of the request's blocks, then its partly filled last block (at
the back before them in 0.11.0, at the front in 0.33.0: ahead either way), then its full blocks from the last to the
first. Each block allocated afterwards comes from the front, so the first ``free + partial`` allocations take the
blocks ahead and each later one evicts the request's last cached block: after ``taken`` blocks allocated since, the
request finds its first ``full - max(0, taken - free - partial)`` blocks. Blocks freed after the preemption join
behind it and change nothing (in 0.33.0 another request's unhashed last block goes to the front, ahead of it: one
block per request freed meanwhile, not counted). A block another request finds cached and takes out of the queue
(``touch``) would move the request forward too; the engine keeps no cache shared between requests, so the only
blocks found are a preempted request's own, which stand behind the ones preempted before it (the waiting queue
re-admits the latest victim first) and are not counted as taken.
"""

from __future__ import annotations


def mark(cached_tokens: int, block_size: int, free_blocks: float, taken: float) -> tuple[int, float]:
    """At a preemption: (the full blocks the request leaves cached, the count of blocks taken from the free queue at
    which the next allocation starts evicting them). ``cached_tokens``: the tokens whose KV it held; ``free_blocks``:
    the free blocks then, all ahead of its own; ``taken``: the blocks taken from the free queue so far."""
    full, partial = divmod(cached_tokens, block_size)
    return full, taken + free_blocks + (1 if partial else 0)


def refound_tokens(kept: tuple[int, float], taken: float, num_tokens: int, block_size: int) -> int:
    """Tokens a preempted request finds cached when it is admitted again: the leading full blocks ``mark`` recorded
    that the ``taken - evict_from`` blocks allocated since have not evicted, at most ``num_tokens - 1`` (its prompt
    and output so far, less the token whose logits it needs), in whole blocks."""
    full, evict_from = kept
    lost = max(0.0, taken - evict_from)
    left = max(0, full - int(lost + 0.5))  # the engine counts blocks in tokens / block size: the nearest block
    return min(left, (num_tokens - 1) // block_size) * block_size
