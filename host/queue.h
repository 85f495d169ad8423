/* sys/queue.h plus the _SAFE iterators glibc leaves out. */
#ifndef BRIDGE_QUEUE_H
#define BRIDGE_QUEUE_H

#include <sys/queue.h>

#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST((head));				\
	    (var) && ((tvar) = TAILQ_NEXT((var), field), 1);		\
	    (var) = (tvar))
#endif

#endif
