/* What Benchmarks/pg-raw-batch.c and pg-raw-single.c share: the tables a write touches (as Stratus's
   migrations create them), array parameters in text or binary format, and pipelined sends. */
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
static const char *C = "iCloud.com.example.RecordsBench", *E = "development", *S = "private", *O = "_00000000000000000000000000000001";

/* The parameters of a batch's records upsert (12 arrays) and index rows insert (9 arrays), as Stratus
   renders them for creates of RecordsBench's `Item` records. */
typedef struct { arr a[12], f[9]; const char *v[12], *fv[9]; int len[12], fmt[12], flen[9], ffmt[9]; } rowset;
static void rows_begin(rowset *r) {
  int oids[12] = {20, 25, 25, 25, 20, 17, 20, 25, 25, 20, 25, 25}, foids[9] = {20, 25, 25, 25, 23, 20, 701, 701, 25};
  for (int c = 0; c < 12; c++) arr_begin(&r->a[c], oids[c]);
  for (int c = 0; c < 9; c++) arr_begin(&r->f[c], foids[c]);
}
/* Adds record `idx` (its row and five index rows); `seq` is the zone's change counter. */
static void rows_add(rowset *r, int idx, int64_t *seq) {
  arr *a = r->a, *f = r->f; char name[64];
  int scr = (idx * 7919) % 1000003; int64_t due = 1796225147000LL + (int64_t)scr * 1000, now = 1796225147000LL + idx;
  char title[64], note[64], tag[32], body[512]; int nl = snprintf(name, sizeof name, "r-%d", idx);
  int tl = snprintf(title, sizeof title, "Item %d rev 0", idx), ol = snprintf(note, sizeof note, "quick brown fox %d", scr);
  int gl = snprintf(tag, sizeof tag, "%llx", (long long)(now * 1000 + ++*seq));
  int bl = snprintf(body, sizeof body, "{\"due\":{\"type\":\"TIMESTAMP\",\"value\":%lld},\"note\":{\"type\":\"STRING\",\"value\":\"%s\"},\"priority\":{\"type\":\"INT64\",\"value\":%d},\"quantity\":{\"type\":\"INT64\",\"value\":%d},\"title\":{\"type\":\"STRING\",\"value\":\"%s\"}}", (long long)due, note, scr % 1000, idx % 97, title);
  arr_i64(&a[0], 1, 0); arr_str(&a[1], name, nl); arr_str(&a[2], "Item", 4); arr_str(&a[3], tag, gl); arr_i64(&a[4], *seq, 0);
  arr_bytes(&a[5], body, bl); arr_i64(&a[6], now, 0); arr_str(&a[7], O, strlen(O)); arr_str(&a[8], "", 0); arr_i64(&a[9], now, 0); arr_str(&a[10], O, strlen(O)); arr_str(&a[11], "", 0);
  const char *fn[5] = {"due", "note", "priority", "quantity", "title"};
  for (int k = 0; k < 5; k++) {
    arr_i64(&f[0], 1, 0); arr_str(&f[1], name, nl); arr_str(&f[2], "Item", 4); arr_str(&f[3], fn[k], strlen(fn[k])); arr_i64(&f[4], 0, 0);
    int64_t vi = k == 0 ? due : k == 2 ? scr % 1000 : k == 3 ? idx % 97 : 0; int isint = k == 0 || k == 2 || k == 3;
    arr_i64(&f[5], vi, !isint); arr_null(&f[6]); arr_null(&f[7]);
    if (k == 1) arr_str(&f[8], note, ol); else if (k == 4) arr_str(&f[8], title, tl); else arr_null(&f[8]);
  }
}
/* Ends the arrays: `v`/`len`/`fmt` and `fv`/`flen`/`ffmt` are the two statements' parameters. */
static void rows_end(rowset *r) {
  for (int c = 0; c < 12; c++) arr_end(&r->a[c], &r->v[c], &r->len[c], &r->fmt[c], 0);
  for (int c = 0; c < 9; c++) arr_end(&r->f[c], &r->fv[c], &r->flen[c], &r->ffmt[c], c >= 5);
}

/* Connects to `url`, makes the tables and the zone, and returns the backend's /proc/PID/stat path in `path`. */
static void open_bench(const char *url, char path[64]) {
  conn = PQconnectdb(url); if (PQstatus(conn) != CONNECTION_OK) { fprintf(stderr, "%s", PQerrorMessage(conn)); exit(1); }
  PGresult *setup = PQexec(conn, SCHEMA); check(setup); PQclear(setup);
  PQclear(PQexec(conn, "INSERT INTO zones (id, container, environment, scope, owner, zone_name, change_seq, db_seq, created_at) VALUES (1, 'iCloud.com.example.RecordsBench', 'development', 'private', '_00000000000000000000000000000001', 'r', 0, 1, 0)"));
  PGresult *pid = PQexec(conn, "SELECT pg_backend_pid()"); int backend = atoi(PQgetvalue(pid, 0, 0)); PQclear(pid);
  snprintf(path, 64, "/proc/%d/stat", backend);
}
/* The CPU ticks (user + system) of the process whose stat file is `path`. */
static long cpu_ticks(const char *path) {
  FILE *f = fopen(path, "r"); long ut = 0, st = 0;
  if (!f || fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &ut, &st) != 2) { fprintf(stderr, "cannot read %s\n", path); exit(1); }
  fclose(f); return ut + st;
}
