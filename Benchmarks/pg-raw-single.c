/* The raw PostgreSQL limit of RecordsBench scenario 5 (8 clients x single-record creates, one zone): what one
   zone's group commit sends for a group of G single creates, from one libpq connection with nothing else in the
   loop (no HTTP, no JSON, no service, no waiting for clients). Two shapes:

     each     as before branch pgsingle: BEGIN + zone + schema; then per write a round trip of its own (SAVEPOINT,
              the zone lock again, its record read, its subscription question; the previous write's record row,
              index rows and usage upsert and RELEASE ahead of it); the last write's rows, the zone stamp, COMMIT
     grouped  as after: BEGIN + zone + schema; SAVEPOINT, lock, one read of every write's record, one subscription
              question; every write's rows as one multi-row statement per table, one usage upsert, RELEASE, the
              zone stamp, COMMIT (three round trips per group)

   RAW_PREPARED=1 prepares every statement but the transaction's own once (as branch pgsingle's write statements).
   Prints records/s and, per record, the wall time, the PostgreSQL backend's CPU (from /proc: run it on the
   server's machine) and the client's CPU.

     cc -O2 -o /tmp/pg-raw-single Benchmarks/pg-raw-single.c -I/usr/include/postgresql -lpq
     Scripts/test-postgres.sh run sh -c '/tmp/pg-raw-single "$STRATUS_POSTGRES_URL" grouped 400 4'
*/
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <sys/resource.h>

static PGconn *conn;
/* The tables a batched create touches, with every index, as Stratus's migrations create them
   (pg_dump -s of a RecordsBench schema), in a schema of their own. */
static const char *SCHEMA =
    "SET client_min_messages TO warning; DROP SCHEMA IF EXISTS raw_bench CASCADE; CREATE SCHEMA raw_bench; SET search_path TO raw_bench;\n"
    "CREATE TABLE databases ( container text NOT NULL, environment text NOT NULL, scope text NOT NULL, owner text NOT NULL, change_seq bigint DEFAULT 0 NOT NULL );\n"
    "CREATE TABLE field_index ( zone_id bigint NOT NULL, record_name text NOT NULL, field_name text NOT NULL, ordinal integer NOT NULL, record_type text NOT NULL, vi bigint, vr double precision, vt text COLLATE \"C\", vr2 double precision );\n"
    "CREATE TABLE records ( zone_id bigint NOT NULL, record_name text NOT NULL, record_type text NOT NULL, change_tag text NOT NULL, seq bigint NOT NULL, deleted boolean DEFAULT false NOT NULL, fields bytea, created_at bigint NOT NULL, created_by text NOT NULL, created_device text NOT NULL, modified_at bigint NOT NULL, modified_by text NOT NULL, modified_device text NOT NULL );\n"
    "CREATE TABLE schemas ( container text NOT NULL, environment text NOT NULL, body bytea NOT NULL );\n"
    "CREATE TABLE subscriptions ( container text NOT NULL, environment text NOT NULL, scope text NOT NULL, owner text NOT NULL, subscriber text NOT NULL, subscription_id text NOT NULL, body bytea NOT NULL, created_at bigint NOT NULL, record_type text, zone_name text );\n"
    "CREATE TABLE zone_usage ( zone_id bigint NOT NULL, record_bytes bigint DEFAULT 0 NOT NULL, asset_bytes bigint DEFAULT 0 NOT NULL );\n"
    "CREATE TABLE zones ( id bigint NOT NULL, container text NOT NULL, environment text NOT NULL, scope text NOT NULL, owner text NOT NULL, zone_name text NOT NULL, change_seq bigint DEFAULT 0 NOT NULL, db_seq bigint NOT NULL, created_at bigint NOT NULL, deleted boolean DEFAULT false NOT NULL );\n"
    "ALTER TABLE databases ADD CONSTRAINT databases_pkey PRIMARY KEY (container, environment, scope, owner);\n"
    "ALTER TABLE field_index ADD CONSTRAINT field_index_pkey PRIMARY KEY (zone_id, record_name, field_name, ordinal);\n"
    "ALTER TABLE records ADD CONSTRAINT records_pkey PRIMARY KEY (zone_id, record_name);\n"
    "ALTER TABLE schemas ADD CONSTRAINT schemas_pkey PRIMARY KEY (container, environment);\n"
    "ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_pkey PRIMARY KEY (container, environment, scope, owner, subscriber, subscription_id);\n"
    "ALTER TABLE zone_usage ADD CONSTRAINT zone_usage_pkey PRIMARY KEY (zone_id);\n"
    "ALTER TABLE zones ADD CONSTRAINT zones_pkey PRIMARY KEY (id);\n"
    "CREATE INDEX field_index_vi ON field_index (zone_id, record_type, field_name, vi, record_name) WHERE (vi IS NOT NULL);\n"
    "CREATE INDEX field_index_vr ON field_index (zone_id, record_type, field_name, vr, record_name) WHERE (vr IS NOT NULL);\n"
    "CREATE INDEX field_index_vt ON field_index (zone_id, record_type, field_name, vt, record_name) WHERE (vt IS NOT NULL);\n"
    "CREATE INDEX records_by_creator ON records (zone_id, record_type, created_by COLLATE \"C\", record_name COLLATE \"C\") WHERE (NOT deleted);\n"
    "CREATE INDEX records_by_type ON records (zone_id, record_type, record_name) WHERE (NOT deleted);\n"
    "CREATE INDEX records_by_type_bytewise ON records (zone_id, record_type, record_name COLLATE \"C\") WHERE (NOT deleted);\n"
    "CREATE UNIQUE INDEX records_changes ON records (zone_id, seq);\n"
    "CREATE INDEX subscriptions_by_watch ON subscriptions (container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id);\n"
    "CREATE INDEX zones_changes ON zones (container, environment, scope, owner, db_seq);\n"
    "CREATE UNIQUE INDEX zones_live ON zones (container, environment, scope, owner, zone_name) WHERE (NOT deleted);\n";
typedef struct { char *data; int len, cap; } buf;
static void put(buf *b, const void *p, int n) { if (b->len + n > b->cap) { b->cap = (b->len + n) * 2 + 64; b->data = realloc(b->data, b->cap); } memcpy(b->data + b->len, p, n); b->len += n; }
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }
static void be32(buf *b, uint32_t v) { unsigned char c[4] = {v >> 24, v >> 16, v >> 8, v}; put(b, c, 4); }
static void be64(buf *b, uint64_t v) { be32(b, v >> 32); be32(b, (uint32_t)v); }
static int binary;
/* array builders: text literal or binary */
typedef struct { buf b; int n; int oid; } arr;
static void arr_begin(arr *a, int oid) { memset(a, 0, sizeof *a); a->oid = oid; if (!binary) puts_(&a->b, "{"); }
static void arr_str(arr *a, const char *s, int len) {
  if (binary) { be32(&a->b, len); put(&a->b, s, len); }
  else { if (a->n) puts_(&a->b, ","); puts_(&a->b, "\""); for (int i = 0; i < len; i++) { if (s[i] == '"' || s[i] == '\\') puts_(&a->b, "\\"); put(&a->b, s + i, 1); } puts_(&a->b, "\""); }
  a->n++;
}
static void arr_bytes(arr *a, const char *s, int len) {
  if (binary) { be32(&a->b, len); put(&a->b, s, len); }
  else { static const char *h = "0123456789abcdef"; if (a->n) puts_(&a->b, ","); puts_(&a->b, "\"\\\\x"); for (int i = 0; i < len; i++) { char c[2] = {h[(unsigned char)s[i] >> 4], h[s[i] & 15]}; put(&a->b, c, 2); } puts_(&a->b, "\""); }
  a->n++;
}
static void arr_i64(arr *a, int64_t v, int isnull) {
  if (binary) { if (isnull) be32(&a->b, 0xFFFFFFFF); else if (a->oid == 23) { be32(&a->b, 4); be32(&a->b, (uint32_t)v); } else { be32(&a->b, 8); be64(&a->b, (uint64_t)v); } }
  else { char t[32]; if (a->n) puts_(&a->b, ","); if (isnull) puts_(&a->b, "NULL"); else { snprintf(t, sizeof t, "%lld", (long long)v); puts_(&a->b, t); } }
  a->n++;
}
static void arr_null(arr *a) { if (binary) be32(&a->b, 0xFFFFFFFF); else { if (a->n) puts_(&a->b, ","); puts_(&a->b, "NULL"); } a->n++; }
/* finish: returns value pointer, length, format */
static void arr_end(arr *a, const char **v, int *len, int *fmt, int hasnull) {
  if (binary) {
    buf h = {0}; be32(&h, a->n ? 1 : 0); be32(&h, hasnull); be32(&h, a->oid); if (a->n) { be32(&h, a->n); be32(&h, 1); }
    put(&h, a->b.data, a->b.len); free(a->b.data); a->b = h; *fmt = 1; *len = h.len;
  } else { puts_(&a->b, "}"); put(&a->b, "", 1); *fmt = 0; *len = 0; }
  *v = a->b.data;
}
static void check(PGresult *r) { ExecStatusType s = PQresultStatus(r); if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && s != PGRES_PIPELINE_SYNC) { fprintf(stderr, "error: %s\n", PQresultErrorMessage(r)); exit(1); } }
static int sent;
static void send_(const char *sql, int n, const char **v, int *len, int *fmt) { if (!PQsendQueryParams(conn, sql, n, NULL, v, len, fmt, 0)) { fprintf(stderr, "send: %s\n", PQerrorMessage(conn)); exit(1); } sent++; }
static void sync_(void) {
  PQpipelineSync(conn);
  for (int i = 0; i < sent; i++) { PGresult *r; while ((r = PQgetResult(conn))) { check(r); PQclear(r); } }
  PGresult *r = PQgetResult(conn); check(r); PQclear(r); sent = 0;
}
/* RAW_PREPARED=1: every statement but BEGIN, SAVEPOINT, RELEASE and COMMIT is prepared once and then only executed. */
static const char *prepared_sql[64];
static void sendp_(const char *sql, int n, const char **v, int *len, int *fmt) {
  if (!getenv("RAW_PREPARED") || !strncmp(sql, "BEGIN", 5) || !strncmp(sql, "SAVEPOINT", 9) || !strncmp(sql, "RELEASE", 7) || !strncmp(sql, "COMMIT", 6)) { send_(sql, n, v, len, fmt); return; }
  int k = 0; char name[16];
  while (k < 64 && prepared_sql[k] && prepared_sql[k] != sql) k++;
  snprintf(name, sizeof name, "raw%d", k);
  if (!prepared_sql[k]) { prepared_sql[k] = sql; if (!PQsendPrepare(conn, name, sql, n, NULL)) { fprintf(stderr, "prepare: %s\n", PQerrorMessage(conn)); exit(1); } sent++; }
  if (!PQsendQueryPrepared(conn, name, n, v, len, fmt, 0)) { fprintf(stderr, "send: %s\n", PQerrorMessage(conn)); exit(1); }
  sent++;
}
#define send_ sendp_
static const char *C = "iCloud.com.example.RecordsBench", *E = "development", *S = "private", *O = "_00000000000000000000000000000001";
static const char *SUBSCRIPTIONS = "SELECT subscriber, body, created_at FROM (SELECT * FROM (SELECT subscriber, subscription_id, body, created_at FROM subscriptions WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND record_type = $5 AND zone_name = $6 ORDER BY container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id LIMIT $7) AS arm UNION ALL SELECT * FROM (SELECT subscriber, subscription_id, body, created_at FROM subscriptions WHERE container = $8 AND environment = $9 AND scope = $10 AND owner = $11 AND record_type = $12 AND zone_name IS NULL ORDER BY container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id LIMIT $13) AS arm UNION ALL SELECT * FROM (SELECT subscriber, subscription_id, body, created_at FROM subscriptions WHERE container = $14 AND environment = $15 AND scope = $16 AND owner = $17 AND record_type IS NULL AND zone_name = $18 ORDER BY container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id LIMIT $19) AS arm) AS candidates ORDER BY subscriber, subscription_id LIMIT $20";
static int64_t seq = 0;

/* The lock pipeline's statements for `count` record names starting at `first` (no sync). */
static void lock_and_read(int first, int count) {
  char name[64]; arr names; arr_begin(&names, 25);
  for (int i = 0; i < count; i++) { int k = snprintf(name, sizeof name, "r-%d", first + i); arr_str(&names, name, k); }
  const char *v[2]; int len[2] = {0, 0}, fmt[2] = {0, 0}; v[0] = "1"; arr_end(&names, &v[1], &len[1], &fmt[1], 0);
  send_("SAVEPOINT stratus_sp1", 0, NULL, NULL, NULL);
  send_("SELECT id, container, environment, scope, owner, zone_name, change_seq, db_seq, created_at, deleted FROM zones WHERE id = $1 AND NOT deleted FOR UPDATE", 1, v, NULL, NULL);
  send_("SELECT zone_id, record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by, created_device, modified_at, modified_by, modified_device FROM records WHERE zone_id = $1 AND record_name = ANY($2::text[])", 2, v, len, fmt);
  const char *q[20] = {C, E, S, O, "Item", "r", "1", C, E, S, O, "Item", "1", C, E, S, O, "r", "1", "1"};
  send_(SUBSCRIPTIONS, 20, q, NULL, NULL);
  free(names.b.data);
}

/* The rows of `count` creates starting at record `first`: records upsert, index rows, usage, RELEASE (no sync). */
static void rows(int first, int count) {
  arr a[12]; int oids[12] = {20, 25, 25, 25, 20, 17, 20, 25, 25, 20, 25, 25};
  for (int c = 0; c < 12; c++) arr_begin(&a[c], oids[c]);
  arr f[9]; int foids[9] = {20, 25, 25, 25, 23, 20, 701, 701, 25};
  for (int c = 0; c < 9; c++) arr_begin(&f[c], foids[c]);
  char name[64];
  for (int i = 0; i < count; i++) {
    int idx = first + i, scr = (idx * 7919) % 1000003; int64_t due = 1796225147000LL + (int64_t)scr * 1000, now = 1796225147000LL + idx;
    char title[64], note[64], tag[32], body[512]; int nl = snprintf(name, sizeof name, "r-%d", idx);
    int tl = snprintf(title, sizeof title, "Item %d rev 0", idx), ol = snprintf(note, sizeof note, "quick brown fox %d", scr);
    int gl = snprintf(tag, sizeof tag, "%llx", (long long)(now * 1000 + ++seq));
    int bl = snprintf(body, sizeof body, "{\"due\":{\"type\":\"TIMESTAMP\",\"value\":%lld},\"note\":{\"type\":\"STRING\",\"value\":\"%s\"},\"priority\":{\"type\":\"INT64\",\"value\":%d},\"quantity\":{\"type\":\"INT64\",\"value\":%d},\"title\":{\"type\":\"STRING\",\"value\":\"%s\"}}", (long long)due, note, scr % 1000, idx % 97, title);
    arr_i64(&a[0], 1, 0); arr_str(&a[1], name, nl); arr_str(&a[2], "Item", 4); arr_str(&a[3], tag, gl); arr_i64(&a[4], seq, 0);
    arr_bytes(&a[5], body, bl); arr_i64(&a[6], now, 0); arr_str(&a[7], O, strlen(O)); arr_str(&a[8], "", 0); arr_i64(&a[9], now, 0); arr_str(&a[10], O, strlen(O)); arr_str(&a[11], "", 0);
    const char *fn[5] = {"due", "note", "priority", "quantity", "title"};
    for (int k = 0; k < 5; k++) {
      arr_i64(&f[0], 1, 0); arr_str(&f[1], name, nl); arr_str(&f[2], "Item", 4); arr_str(&f[3], fn[k], strlen(fn[k])); arr_i64(&f[4], 0, 0);
      int64_t vi = k == 0 ? due : k == 2 ? scr % 1000 : k == 3 ? idx % 97 : 0; int isint = k == 0 || k == 2 || k == 3;
      arr_i64(&f[5], vi, !isint); arr_null(&f[6]); arr_null(&f[7]);
      if (k == 1) arr_str(&f[8], note, ol); else if (k == 4) arr_str(&f[8], title, tl); else arr_null(&f[8]);
    }
  }
  const char *v[12]; int len[12], fmt[12];
  for (int c = 0; c < 12; c++) arr_end(&a[c], &v[c], &len[c], &fmt[c], 0);
  const char *fv[9]; int flen[9], ffmt[9];
  for (int c = 0; c < 9; c++) arr_end(&f[c], &fv[c], &flen[c], &ffmt[c], c >= 5);
  send_("INSERT INTO records (zone_id, record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by, created_device, modified_at, modified_by, modified_device) SELECT z, n, t, tag, s, false, f, ca, cb, cd, ma, mb, md FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bytea[], $7::bigint[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::text[]) AS u(z, n, t, tag, s, f, ca, cb, cd, ma, mb, md) ON CONFLICT (zone_id, record_name) DO UPDATE SET record_type = excluded.record_type, change_tag = excluded.change_tag, seq = excluded.seq, deleted = false, fields = excluded.fields, created_at = excluded.created_at, created_by = excluded.created_by, created_device = excluded.created_device, modified_at = excluded.modified_at, modified_by = excluded.modified_by, modified_device = excluded.modified_device", 12, v, len, fmt);
  send_("INSERT INTO field_index (zone_id, record_name, record_type, field_name, ordinal, vi, vr, vr2, vt) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::float8[], $8::float8[], $9::text[])", 9, fv, flen, ffmt);
  char usage[32]; snprintf(usage, sizeof usage, "%d", 224 * count); const char *u[3] = {"{1}", "", "{0}"}; char ub[40]; snprintf(ub, sizeof ub, "{%s}", usage); u[1] = ub;
  send_("INSERT INTO zone_usage (zone_id, record_bytes, asset_bytes) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) ON CONFLICT (zone_id) DO UPDATE SET record_bytes = zone_usage.record_bytes + excluded.record_bytes, asset_bytes = zone_usage.asset_bytes + excluded.asset_bytes", 3, u, NULL, NULL);
  send_("RELEASE SAVEPOINT stratus_sp1", 0, NULL, NULL, NULL);
  for (int c = 0; c < 12; c++) free(a[c].b.data);
  for (int c = 0; c < 9; c++) free(f[c].b.data);
}

int main(int argc, char **argv) {
  if (argc < 5) { fprintf(stderr, "usage: raw URL each|grouped GROUPS GROUPSIZE\n"); return 2; }
  conn = PQconnectdb(argv[1]); if (PQstatus(conn) != CONNECTION_OK) { fprintf(stderr, "%s", PQerrorMessage(conn)); return 1; }
  binary = 1; int grouped = strcmp(argv[2], "grouped") == 0, groups = atoi(argv[3]), size = atoi(argv[4]);
  PGresult *setup = PQexec(conn, SCHEMA); check(setup); PQclear(setup);
  PQclear(PQexec(conn, "INSERT INTO zones (id, container, environment, scope, owner, zone_name, change_seq, db_seq, created_at) VALUES (1, 'iCloud.com.example.RecordsBench', 'development', 'private', '_00000000000000000000000000000001', 'r', 0, 1, 0)"));
  PGresult *pid = PQexec(conn, "SELECT pg_backend_pid()"); int backend = atoi(PQgetvalue(pid, 0, 0)); PQclear(pid);
  char path[64]; snprintf(path, sizeof path, "/proc/%d/stat", backend);
  long pg0 = 0, pg1 = 0; { FILE *f = fopen(path, "r"); long ut, st; fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &ut, &st); fclose(f); pg0 = ut + st; }
  PQenterPipelineMode(conn);
  struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0); struct rusage r0, r1; getrusage(RUSAGE_SELF, &r0);
  int trips = 0;
  for (int g = 0; g < groups; g++) {
    int first = g * size;
    { const char *v[5] = {C, E, S, O, "r"};
      send_("BEGIN ISOLATION LEVEL READ COMMITTED", 0, NULL, NULL, NULL);
      send_("SELECT id, container, environment, scope, owner, zone_name, change_seq, db_seq, created_at, deleted FROM zones WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND zone_name = $5 AND NOT deleted", 5, v, NULL, NULL);
      send_("SELECT body FROM schemas WHERE container = $1 AND environment = $2", 2, v, NULL, NULL); sync_(); trips++; }
    if (grouped) {
      lock_and_read(first, size); sync_(); trips++;
      rows(first, size);
    } else {
      for (int i = 0; i < size; i++) {
        if (i > 0) rows(first + i - 1, 1);
        lock_and_read(first + i, 1); sync_(); trips++;
      }
      rows(first + size - 1, 1);
    }
    char seqs[32]; snprintf(seqs, sizeof seqs, "%lld", (long long)seq); const char *w[2] = {"1", seqs};
    send_("UPDATE zones SET db_seq = pg_current_xact_id()::text::bigint, change_seq = coalesce($2, change_seq) WHERE id = $1 AND NOT deleted", 2, w, NULL, NULL);
    send_("COMMIT", 0, NULL, NULL, NULL);
    sync_(); trips++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1); getrusage(RUSAGE_SELF, &r1);
  { FILE *f = fopen(path, "r"); long ut, st; fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &ut, &st); fclose(f); pg1 = ut + st; }
  double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  double client = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
  double pg = (pg1 - pg0) / 100.0; int n = groups * size;
  printf("%s, groups of %d: %d records in %.3f s = %.0f records/s; %.2f round trips per record; per record: wall %.1f us, PostgreSQL backend CPU %.1f us, client CPU %.1f us\n", argv[2], size, n, wall, n / wall, (double)trips / n, wall / n * 1e6, pg / n * 1e6, client / n * 1e6);
  return 0;
}
