/* SPDX-License-Identifier: MIT */
/*
 * list.h - circular doubly linked lists, the kernel's struct list_head.
 * An empty list points at itself; list_del poisons the removed entry.
 *
 * Every store to a next pointer is WRITE_ONCE: the list_head of a slab
 * overlays page->compound_head, which kfree() reads without a lock to tell
 * a tail page (bit 0 set) from a head; list pointers keep bit 0 clear, so
 * a racing reader sees either the old or the new pointer, never a tail mark.
 */
#ifndef USLAB_MM_LIST_H
#define USLAB_MM_LIST_H

#include "compiler.h"

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)
#define LIST_POISON1		((struct list_head *)0x100)
#define LIST_POISON2		((struct list_head *)0x122)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	WRITE_ONCE(l->next, l);
	l->prev = l;
}

static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	WRITE_ONCE(n->next, next);
	n->prev = prev;
	WRITE_ONCE(prev->next, n);
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}

static inline void __list_del_entry(struct list_head *e)
{
	e->next->prev = e->prev;
	WRITE_ONCE(e->prev->next, e->next);
}

static inline void list_del(struct list_head *e)
{
	__list_del_entry(e);
	WRITE_ONCE(e->next, LIST_POISON1);
	e->prev = LIST_POISON2;
}

static inline void list_del_init(struct list_head *e)
{
	__list_del_entry(e);
	INIT_LIST_HEAD(e);
}

static inline void list_move(struct list_head *e, struct list_head *head)
{
	__list_del_entry(e);
	list_add(e, head);
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	__list_del_entry(e);
	list_add_tail(e, head);
}

static inline bool list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

static inline void __list_splice(struct list_head *list, struct list_head *prev,
				 struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	WRITE_ONCE(prev->next, first);
	WRITE_ONCE(last->next, next);
	next->prev = last;
}

/* Join @list after @head and reinitialise @list. */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

/* Join @list before @head (at the tail) and reinitialise @list. */
static inline void list_splice_tail_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) list_entry((head)->prev, type, member)
#define list_first_entry_or_null(head, type, member) \
	(list_empty(head) ? NULL : list_first_entry(head, type, member))
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)

#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

#endif /* USLAB_MM_LIST_H */
