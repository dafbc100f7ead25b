/*
 * gsu_base.c — what every file of the core shares (gsu_base.h): the text of
 * a status.
 */
#include "gsu_base.h"

const char *
gsu_status_string(gsu_status s)
{
	switch (s)
	{
		case GSU_OK:
			return "success";
		case GSU_ENOMEM:
			return "out of memory";
		case GSU_EINVAL:
			return "invalid argument";
		case GSU_ENOTFINITE:
			return "the iterate became non-finite";
		case GSU_ECANCELLED:
			return "cancelled";
		case GSU_ENOTSYMMETRIC:
			return "the covariance matrix is not symmetric";
		case GSU_ENOTPSD:
			return "the covariance matrix is not positive semi-definite";
	}
	return "unknown status";
}
