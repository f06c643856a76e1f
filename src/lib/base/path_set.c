/* A hash set of (path, tag) pairs (path_set.h): open addressing, linear probing. */
#include "path_set.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a over the path's bytes, then the tag's. */
static size_t pair_hash(const char *key, int tag)
{
	uint64_t h = 14695981039346656037ULL;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	h = (h ^ (uint64_t)(unsigned)tag) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 32));
}

/* The slot holding (key, tag), or the free slot where it would go. cap is a power of two. */
static struct path_set_slot *slot_of(struct path_set_slot *slots, size_t cap, const char *key,
				     int tag)
{
	size_t i = pair_hash(key, tag) & (cap - 1);
	while (slots[i].key && (slots[i].tag != tag || strcmp(slots[i].key, key) != 0))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

bool path_set_find(const struct path_set *set, const char *key, int tag, size_t *value)
{
	if (!set->cap)
		return false;
	const struct path_set_slot *s = slot_of(set->slots, set->cap, key, tag);
	if (!s->key)
		return false;
	if (value)
		*value = s->value;
	return true;
}

/* Twice the room, every pair moved over; false when out of memory. */
static bool set_grow(struct path_set *set)
{
	size_t cap = set->cap ? set->cap * 2 : 64;
	struct path_set_slot *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return false;
	for (size_t i = 0; i < set->cap; i++)
		if (set->slots[i].key)
			*slot_of(slots, cap, set->slots[i].key, set->slots[i].tag) = set->slots[i];
	free(set->slots);
	set->slots = slots;
	set->cap = cap;
	return true;
}

int path_set_put(struct path_set *set, const char *key, int tag, size_t value)
{
	/* At most half full: a probe stays short, and a free slot always ends it. */
	if ((set->used + 1) * 2 > set->cap && !set_grow(set))
		return -ENOMEM;
	struct path_set_slot *s = slot_of(set->slots, set->cap, key, tag);
	if (!s->key) {
		s->key = key;
		s->tag = tag;
		set->used++;
	}
	s->value = value;
	return 0;
}

void path_set_free(struct path_set *set)
{
	free(set->slots);
	set->slots = NULL;
	set->cap = set->used = 0;
}
