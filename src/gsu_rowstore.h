/*
 * gsu_rowstore.h — memory for buffered training rows: buffers that grow
 * without moving once large (an mmap'd reservation), bounded by
 * gsu.max_training_memory.
 */
#ifndef GSU_ROWSTORE_H
#define GSU_ROWSTORE_H

#include "gsu_glue.h"

/*
 * A buffer that grows without moving once it is large: see gsu_growbuf_resize.
 * Zeroed, it stands for a buffer that is palloc'd (or absent).
 */
typedef struct GsuGrowBuf
{
	void	   *map;			/* base of an mmap'd reservation, or NULL */
	Size		map_bytes;		/* its length */
} GsuGrowBuf;

void	   *gsu_growbuf_resize(GsuGrowBuf *g, void *p, Size used_bytes, Size new_bytes,
							   Size max_bytes);
void		gsu_growbuf_free(GsuGrowBuf *g, void *p);
void		gsu_growbuf_unmap(GsuGrowBuf *g);

#endif							/* GSU_ROWSTORE_H */
