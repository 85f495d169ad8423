/*
 * Tail queues: the system's sys/queue.h plus the _SAFE iterators glibc
 * leaves out; where there is no sys/queue.h (Windows), the tail queue
 * macros the host uses, with the BSD names and behaviour.
 */
#ifndef BRIDGE_QUEUE_H
#define BRIDGE_QUEUE_H

#ifdef HAVE_SYS_QUEUE_H
#include <sys/queue.h>
#else
#include <stddef.h>

#define TAILQ_HEAD(name, type)						\
	struct name {							\
		struct type	 *tqh_first;				\
		struct type	**tqh_last;				\
	}
#define TAILQ_HEAD_INITIALIZER(head)	{ NULL, &(head).tqh_first }
#define TAILQ_ENTRY(type)						\
	struct {							\
		struct type	 *tqe_next;				\
		struct type	**tqe_prev;				\
	}

#define TAILQ_FIRST(head)		((head)->tqh_first)
#define TAILQ_NEXT(elm, field)		((elm)->field.tqe_next)
#define TAILQ_EMPTY(head)		(TAILQ_FIRST(head) == NULL)
/* The head and an entry share a layout: tqh_last of the "head" an entry's
 * back pointer lands in is the pointer to the element before it. */
#define TAILQ_LAST(head, headname)					\
	(*(((struct headname *)((head)->tqh_last))->tqh_last))
#define TAILQ_PREV(elm, headname, field)				\
	(*(((struct headname *)((elm)->field.tqe_prev))->tqh_last))

#define TAILQ_FOREACH(var, head, field)					\
	for ((var) = TAILQ_FIRST(head); (var) != NULL;			\
	    (var) = TAILQ_NEXT(var, field))
#define TAILQ_FOREACH_REVERSE(var, head, headname, field)		\
	for ((var) = TAILQ_LAST(head, headname); (var) != NULL;		\
	    (var) = TAILQ_PREV(var, headname, field))

#define TAILQ_INIT(head) do {						\
	(head)->tqh_first = NULL;					\
	(head)->tqh_last = &(head)->tqh_first;				\
} while (0)
#define TAILQ_INSERT_HEAD(head, elm, field) do {			\
	if (((elm)->field.tqe_next = (head)->tqh_first) != NULL)	\
		(head)->tqh_first->field.tqe_prev =			\
		    &(elm)->field.tqe_next;				\
	else								\
		(head)->tqh_last = &(elm)->field.tqe_next;		\
	(head)->tqh_first = (elm);					\
	(elm)->field.tqe_prev = &(head)->tqh_first;			\
} while (0)
#define TAILQ_INSERT_TAIL(head, elm, field) do {			\
	(elm)->field.tqe_next = NULL;					\
	(elm)->field.tqe_prev = (head)->tqh_last;			\
	*(head)->tqh_last = (elm);					\
	(head)->tqh_last = &(elm)->field.tqe_next;			\
} while (0)
#define TAILQ_REMOVE(head, elm, field) do {				\
	if ((elm)->field.tqe_next != NULL)				\
		(elm)->field.tqe_next->field.tqe_prev =			\
		    (elm)->field.tqe_prev;				\
	else								\
		(head)->tqh_last = (elm)->field.tqe_prev;		\
	*(elm)->field.tqe_prev = (elm)->field.tqe_next;			\
} while (0)
#define TAILQ_CONCAT(head1, head2, field) do {				\
	if (!TAILQ_EMPTY(head2)) {					\
		*(head1)->tqh_last = (head2)->tqh_first;		\
		(head2)->tqh_first->field.tqe_prev = (head1)->tqh_last;	\
		(head1)->tqh_last = (head2)->tqh_last;			\
		TAILQ_INIT(head2);					\
	}								\
} while (0)
#endif

#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST((head));				\
	    (var) && ((tvar) = TAILQ_NEXT((var), field), 1);		\
	    (var) = (tvar))
#endif

#endif
