CREATE EXTENSION IF NOT EXISTS pg_gsu;
-- gsu.image_variance / gsu.image_covariance: first-order uncertainty of an image under a random translation
CREATE FUNCTION moments_image_err(sql text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql;
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE '%: %', SQLSTATE, SQLERRM;
END $$;
-- a 4x3 image with hand-computed gradients (central inside, one-sided at the borders):
--   image          gx                 gy
--   1  2  4  8     1  1.5  3   4      3  4    5    8
--   4  6  9 16     2  2.5  5   7      4  5.5  5.5  9
--   9 13 15 26     4  3    6.5 11     5  7    6    10
-- variance = sigma2 * (gx^2 + gy^2); sigma2 = 2
SELECT gsu.image_variance(ARRAY[1,2,4,8, 4,6,9,16, 9,13,15,26]::float8[], 4, 3, 2);
SELECT gsu.image_variance(ARRAY[[1,2,4,8],[4,6,9,16],[9,13,15,26]]::float8[], 2);
SELECT gsu.image_variance(ARRAY[[1,2,4,8],[4,6,9,16],[9,13,15,26]]::float8[], 4, 3, 2);
SELECT array_dims(gsu.image_variance(ARRAY[[1,2,4,8],[4,6,9,16],[9,13,15,26]]::float8[], 2)) AS dims_2d,
	array_dims(gsu.image_variance(ARRAY[1,2,4,8, 4,6,9,16, 9,13,15,26]::float8[], 4, 3, 2)) AS dims_1d;
-- a linear ramp a*x + b*y + c has gradient (a, b) everywhere: variance sigma2*(a^2 + b^2) = 0.3*(0.75^2 + 2.5^2)
SELECT bool_and(abs(v - 0.3 * (0.75^2 + 2.5^2)) < 1e-13) AS ramp_ok, count(*)
	FROM unnest(gsu.image_variance((SELECT array_agg(0.75 * x - 2.5 * y + 10 ORDER BY y, x) FROM generate_series(0, 6) x, generate_series(0, 4) y), 7, 5, 0.3)) v;
-- sigma2 = 0: no uncertainty
SELECT gsu.image_variance(ARRAY[[1,2],[3,5]]::float8[], 0);
-- an axis of length 1 has no derivative: a row and a column
SELECT gsu.image_variance(ARRAY[3,1,4,1,5]::float8[], 5, 1, 1);
SELECT gsu.image_variance(ARRAY[3,1,4,1,5]::float8[], 1, 5, 1);
SELECT gsu.image_variance(ARRAY[[7]]::float8[], 1);
-- covariance of the 2x2 image [[1,2],[3,5]]: pixels (gx, gy) = (1,2), (1,3), (2,2), (2,3)
SELECT gsu.image_covariance(ARRAY[[1,2],[3,5]]::float8[], 1);
SELECT gsu.image_covariance(ARRAY[1,2,3,5]::float8[], 2, 2, 0.5);
-- covariance of the 4x3 image: n x n, symmetric, diagonal = image_variance, rank-2 form sigma2*(gx_i gx_j + gy_i gy_j)
CREATE TABLE moments_image AS SELECT ARRAY[1,2,4,8, 4,6,9,16, 9,13,15,26]::float8[] AS img,
	ARRAY[1,1.5,3,4, 2,2.5,5,7, 4,3,6.5,11]::float8[] AS gx, ARRAY[3,4,5,8, 4,5.5,5.5,9, 5,7,6,10]::float8[] AS gy;
SELECT array_dims(gsu.image_covariance(img, 4, 3, 2)) FROM moments_image;
SELECT bool_and(c[i][j] = c[j][i]) AS symmetric, bool_and(c[i][j] = 2 * (gx[i] * gx[j] + gy[i] * gy[j])) AS rank2_ok,
	bool_and(i <> j OR c[i][i] = v[i]) AS diagonal_ok
	FROM (SELECT gsu.image_covariance(img, 4, 3, 2) AS c, gsu.image_variance(img, 4, 3, 2) AS v, gx, gy FROM moments_image) s,
		generate_series(1, 12) i, generate_series(1, 12) j;
-- the 2-D form gives the same covariance (pixels in row-major order)
SELECT gsu.image_covariance(ARRAY[[1,2,4,8],[4,6,9,16],[9,13,15,26]]::float8[], 2) = gsu.image_covariance(img, 4, 3, 2) AS same FROM moments_image;
-- the largest covariance allowed: 4096 pixels (64 x 64)
SELECT array_dims(gsu.image_covariance(array_fill(1::float8, ARRAY[64, 64]), 1));
-- STRICT: NULL in, NULL out
SELECT gsu.image_variance(NULL, 2, 2, 1) IS NULL AS a, gsu.image_variance(ARRAY[1,2,3,4]::float8[], NULL, 2, 1) IS NULL AS b,
	gsu.image_variance(ARRAY[[1,2],[3,4]]::float8[], NULL) IS NULL AS c, gsu.image_covariance(NULL::float8[], 1) IS NULL AS d,
	gsu.image_covariance(ARRAY[1,2,3,4]::float8[], 2, 2, NULL) IS NULL AS e;
-- errors: sizes
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[1,2,3,4]::float8[], 0, 4, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[1,2,3,4]::float8[], 4, -1, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[1,2,3,4]::float8[], -2, -2, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[1,2,3,4,5]::float8[], 2, 2, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[1,2,3]::float8[], 2, 2, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[1,2,3,4]::float8[], 65536, 65536, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[[1,2,3],[4,5,6]]::float8[], 2, 3, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[[1,2,3],[4,5,6]]::float8[], 3, 3, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[[[1,2],[3,4]]]::float8[], 2, 2, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[1,2,3,4]::float8[], 1)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[[[1,2],[3,4]]]::float8[], 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance('{}'::float8[], 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance('{}'::float8[], 1, 1, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(array_fill(1::float8, ARRAY[65, 65]), 1)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(array_fill(1::float8, ARRAY[4097]), 4097, 1, 1)$$);
-- errors: pixels
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[1,NULL,3,4]::float8[], 2, 2, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[[1,2],[3,NULL]]::float8[], 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[1,2,3,'NaN']::float8[], 2, 2, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[[1,2,3],['Infinity',5,6]]::float8[], 1)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[[1,'-Infinity'],[3,4]]::float8[], 1)$$);
-- errors: translation variance
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[1,2,3,4]::float8[], 2, 2, -1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[[1,2],[3,4]]::float8[], 'NaN')$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[1,2,3,4]::float8[], 2, 2, 'Infinity')$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[[1,2],[3,4]]::float8[], '-Infinity')$$);
-- errors: overflow
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[-1e308, 1e308, -1e308, 1e308]::float8[], 2, 2, 1)$$);
SELECT moments_image_err($$SELECT gsu.image_variance(ARRAY[[0, 1e150],[0, 1e150]]::float8[], 1e10)$$);
SELECT moments_image_err($$SELECT gsu.image_covariance(ARRAY[[0, 1e150],[0, 1e150]]::float8[], 1e10)$$);
DROP TABLE moments_image;
DROP FUNCTION moments_image_err(text);
