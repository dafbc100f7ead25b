/*
 * gsu_equality.c — equality and hashing of the stored types gsu.model,
 * gsu.projection and gsu.refset, on their canonical bytes: every input and
 * receive function builds a value field by field from zeroed memory, so
 * two values are equal exactly when their bytes are.  Equality makes
 * DISTINCT, GROUP BY, UNION and hash joins work on these types; there is
 * no order (a model is not less than another).  One C function per
 * operation serves the three types.
 */
#include "gsu_glue.h"

#include "access/detoast.h"
#include "common/hashfn.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(gsu_bytes_eq);
PG_FUNCTION_INFO_V1(gsu_bytes_ne);
PG_FUNCTION_INFO_V1(gsu_bytes_hash);
PG_FUNCTION_INFO_V1(gsu_bytes_hash_extended);

static bool
bytes_equal(FunctionCallInfo fcinfo)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	struct varlena *b = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1));
	Size		len = VARSIZE_ANY_EXHDR(a);
	bool		eq = len == VARSIZE_ANY_EXHDR(b) && memcmp(VARDATA_ANY(a), VARDATA_ANY(b), len) == 0;

	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return eq;
}

Datum
gsu_bytes_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bytes_equal(fcinfo));
}

Datum
gsu_bytes_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!bytes_equal(fcinfo));
}

Datum
gsu_bytes_hash(PG_FUNCTION_ARGS)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	Datum		h = hash_any((const unsigned char *) VARDATA_ANY(a), (int) VARSIZE_ANY_EXHDR(a));

	PG_FREE_IF_COPY(a, 0);
	return h;
}

Datum
gsu_bytes_hash_extended(PG_FUNCTION_ARGS)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	Datum		h = hash_any_extended((const unsigned char *) VARDATA_ANY(a),
									  (int) VARSIZE_ANY_EXHDR(a), PG_GETARG_INT64(1));

	PG_FREE_IF_COPY(a, 0);
	return h;
}
