
-- ------------------------------------------------------------ gsu.fit

CREATE FUNCTION gsu.fit(relation regclass, mean text, variance text, label text,
						options jsonb DEFAULT NULL) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_fit' LANGUAGE C VOLATILE PARALLEL UNSAFE COST 1000000;
COMMENT ON FUNCTION gsu.fit(regclass, text, text, text, jsonb) IS
	'trains on a relation of any size in a few scans: solver newton (default; a sample trained in memory, then Newton steps with the exact Hessian from scans of gsu.hessian) or lbfgs (passes of gsu.gradient); column names are quoted as identifiers; variance may be NULL';
