-- ------------------------------------------------------------ image translation uncertainty

CREATE FUNCTION gsu.image_variance(image float8[], width int4, height int4, sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_variance_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2000;
CREATE FUNCTION gsu.image_variance(image float8[], sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_variance_2d_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2000;
CREATE FUNCTION gsu.image_covariance(image float8[], width int4, height int4, sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_covariance_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100000;
CREATE FUNCTION gsu.image_covariance(image float8[], sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_covariance_2d_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100000;

COMMENT ON FUNCTION gsu.image_variance(float8[], int4, int4, float8) IS
	'per-pixel variance sigma2*(gx^2 + gy^2) of a row-major image under a random translation t ~ N(0, sigma2*I2), to first order';
COMMENT ON FUNCTION gsu.image_variance(float8[], float8) IS
	'per-pixel translation variance of a 2-D (height x width) image, returned as a height x width array';
COMMENT ON FUNCTION gsu.image_covariance(float8[], int4, int4, float8) IS
	'n x n covariance sigma2*J*J'' (J = [gx gy], n = width*height pixels in row-major order) of a row-major image under a random translation';
COMMENT ON FUNCTION gsu.image_covariance(float8[], float8) IS
	'n x n translation covariance of a 2-D (height x width) image, pixels in row-major order';

CREATE FUNCTION gsu.image_covariance_factor(image float8[], width int4, height int4, sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_covariance_factor_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2000;
CREATE FUNCTION gsu.image_covariance_factor(image float8[], sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_covariance_factor_2d_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2000;
COMMENT ON FUNCTION gsu.image_covariance_factor(float8[], int4, int4, float8) IS
	'n x 2 factor L = sqrt(sigma2)*[gx gy] of the translation covariance L*L'' = gsu.image_covariance (n = width*height >= 3 pixels, row-major): a low-rank variance that gsu.train, gsu.fit and the scoring functions read in O(n)';
COMMENT ON FUNCTION gsu.image_covariance_factor(float8[], float8) IS
	'n x 2 factor of the translation covariance of a 2-D (height x width) image, pixels in row-major order';
