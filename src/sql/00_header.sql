-- pg_gsu install script, built by the Makefile from the fragments in src/sql, in name order

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_gsu" to load this file. \quit


-- pg_gsu installs only into a schema gsu that nobody else has had a hand in:
-- owned by the installing role, with no CREATE privilege for another role, and
-- empty. CREATE EXTENSION adopts an existing schema of that name, and what is
-- in it stays there, outside the extension: a function or aggregate that an
-- earlier owner planted under a name pg_gsu's users call (gsu.train with an
-- int2 label, which matches better than pg_gsu's int4) would run as whoever
-- calls it, a superuser included. Handing such a schema over (ALTER SCHEMA gsu
-- OWNER TO ..., REASSIGN OWNED) keeps those objects, so a schema that holds
-- anything at all is refused, whoever owns its objects: a schema CREATE
-- EXTENSION makes itself is empty here, and the way out is to drop the old one.
-- Every name here is qualified, operators included: this runs with the schema
-- gsu, whose contents are not trusted yet, in search_path.
-- The installing role is the extension's owner, whose catalog row CREATE
-- EXTENSION has made already: the role that ran CREATE EXTENSION. It is
-- CURRENT_USER too, but for a trusted install by a role that is not a
-- superuser (pg_gsu.control: trusted), which runs this script as the bootstrap
-- superuser; the schema gsu that CREATE EXTENSION made for it is its own.
DO $$
DECLARE
	installer pg_catalog.name := (SELECT pg_catalog.pg_get_userbyid(e.extowner) FROM pg_catalog.pg_extension e
								  WHERE e.extname OPERATOR(pg_catalog.=) 'pg_gsu');
	schema_oid pg_catalog.oid;
	schema_owner pg_catalog.name;
	creators pg_catalog.text;
	held pg_catalog.text[];
	shown pg_catalog.text;
	how CONSTANT pg_catalog.text := 'Check what the schema gsu holds (in psql: \dn+ gsu, \df gsu.*, \dt gsu.*), '
		'drop it with DROP SCHEMA gsu CASCADE, then run CREATE EXTENSION again, which creates the schema gsu itself.';
BEGIN
	SELECT n.oid, pg_catalog.pg_get_userbyid(n.nspowner) INTO schema_oid, schema_owner
	FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) 'gsu';

	IF NOT coalesce(schema_owner OPERATOR(pg_catalog.=) installer, false) THEN
		RAISE EXCEPTION 'schema "gsu" is owned by role "%", not by the role installing pg_gsu ("%")',
			schema_owner, installer
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'pg_gsu installs into the schema gsu, and the owner of that schema could replace the functions it calls. '
					  'Handing the schema over (ALTER SCHEMA gsu OWNER TO ...) would keep whatever its owner put in it.',
				  HINT = how;
	END IF;

	SELECT pg_catalog.string_agg(CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
									ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END,
								 ', ' ORDER BY a.grantee)
	INTO creators
	FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
	WHERE n.oid OPERATOR(pg_catalog.=) schema_oid
	  AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
	  AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner;
	IF creators IS NOT NULL THEN
		RAISE EXCEPTION 'other roles may create objects in schema "gsu": %', creators
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'pg_gsu installs into the schema gsu, and a role that may create objects in it could add functions that stand in for pg_gsu''s.',
				  HINT = how;
	END IF;

	-- every object whose namespace is gsu: the catalogs with a namespace column,
	-- and pg_depend for any other kind (every object in a schema depends on it)
	SELECT pg_catalog.array_agg(pg_catalog.concat(i.type, ' ', i.identity)
								ORDER BY pg_catalog.concat(i.type, ' ', i.identity) COLLATE pg_catalog."C")
	INTO held
	FROM (SELECT d.classid, d.objid FROM pg_catalog.pg_depend d
		  WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass::pg_catalog.oid
			AND d.refobjid OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid, c.oid FROM pg_catalog.pg_class c
			WHERE c.relnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass::pg_catalog.oid, p.oid FROM pg_catalog.pg_proc p
			WHERE p.pronamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_type'::pg_catalog.regclass::pg_catalog.oid, t.oid FROM pg_catalog.pg_type t
			WHERE t.typnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_operator'::pg_catalog.regclass::pg_catalog.oid, o.oid FROM pg_catalog.pg_operator o
			WHERE o.oprnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_opclass'::pg_catalog.regclass::pg_catalog.oid, c.oid FROM pg_catalog.pg_opclass c
			WHERE c.opcnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_opfamily'::pg_catalog.regclass::pg_catalog.oid, f.oid FROM pg_catalog.pg_opfamily f
			WHERE f.opfnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_collation'::pg_catalog.regclass::pg_catalog.oid, c.oid FROM pg_catalog.pg_collation c
			WHERE c.collnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_conversion'::pg_catalog.regclass::pg_catalog.oid, c.oid FROM pg_catalog.pg_conversion c
			WHERE c.connamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::pg_catalog.oid, s.oid FROM pg_catalog.pg_statistic_ext s
			WHERE s.stxnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_ts_config'::pg_catalog.regclass::pg_catalog.oid, c.oid FROM pg_catalog.pg_ts_config c
			WHERE c.cfgnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_ts_dict'::pg_catalog.regclass::pg_catalog.oid, d.oid FROM pg_catalog.pg_ts_dict d
			WHERE d.dictnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_ts_parser'::pg_catalog.regclass::pg_catalog.oid, p.oid FROM pg_catalog.pg_ts_parser p
			WHERE p.prsnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_ts_template'::pg_catalog.regclass::pg_catalog.oid, t.oid FROM pg_catalog.pg_ts_template t
			WHERE t.tmplnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_extension'::pg_catalog.regclass::pg_catalog.oid, e.oid FROM pg_catalog.pg_extension e
			WHERE e.extnamespace OPERATOR(pg_catalog.=) schema_oid
		  UNION SELECT 'pg_catalog.pg_default_acl'::pg_catalog.regclass::pg_catalog.oid, a.oid FROM pg_catalog.pg_default_acl a
			WHERE a.defaclnamespace OPERATOR(pg_catalog.=) schema_oid) o,
		LATERAL pg_catalog.pg_identify_object(o.classid, o.objid, 0) i
	-- but pg_gsu itself, whose catalog row CREATE EXTENSION has made already
	WHERE NOT (o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass::pg_catalog.oid
			   AND o.objid OPERATOR(pg_catalog.=) (SELECT e.oid FROM pg_catalog.pg_extension e
											   WHERE e.extname OPERATOR(pg_catalog.=) 'pg_gsu'));
	IF held IS NOT NULL THEN
		shown := pg_catalog.array_to_string(held[1:10], ', ');
		IF pg_catalog.cardinality(held) OPERATOR(pg_catalog.>) 10 THEN
			shown := pg_catalog.concat(shown, ' and ', pg_catalog.cardinality(held) OPERATOR(pg_catalog.-) 10, ' more');
		END IF;
		RAISE EXCEPTION 'schema "gsu" is not empty: it holds %', shown
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'pg_gsu installs only into an empty schema gsu: an object already there, whoever owns it now, '
					  'would stay outside the extension and could stand in for the functions pg_gsu''s users call.',
				  HINT = how;
	END IF;
END
$$;

-- Every role may use pg_gsu: the schema's USAGE is PUBLIC's, as its functions'
-- EXECUTE is by default (none of them is SECURITY DEFINER: each runs with its
-- caller's rights, and gsu.fit and the other functions that read a table by
-- name read it as the caller). Only the schema's owner may create objects in it.
GRANT USAGE ON SCHEMA gsu TO PUBLIC;
