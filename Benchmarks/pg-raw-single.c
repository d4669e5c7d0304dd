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
#include "pg-raw-common.h"
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
  rowset r; rows_begin(&r);
  for (int i = 0; i < count; i++) rows_add(&r, first + i, &seq);
  rows_end(&r);
  send_("INSERT INTO records (zone_id, record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by, created_device, modified_at, modified_by, modified_device) SELECT z, n, t, tag, s, false, f, ca, cb, cd, ma, mb, md FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bytea[], $7::bigint[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::text[]) AS u(z, n, t, tag, s, f, ca, cb, cd, ma, mb, md) ON CONFLICT (zone_id, record_name) DO UPDATE SET record_type = excluded.record_type, change_tag = excluded.change_tag, seq = excluded.seq, deleted = false, fields = excluded.fields, created_at = excluded.created_at, created_by = excluded.created_by, created_device = excluded.created_device, modified_at = excluded.modified_at, modified_by = excluded.modified_by, modified_device = excluded.modified_device", 12, r.v, r.len, r.fmt);
  send_("INSERT INTO field_index (zone_id, record_name, record_type, field_name, ordinal, vi, vr, vr2, vt) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::float8[], $8::float8[], $9::text[])", 9, r.fv, r.flen, r.ffmt);
  char usage[32]; snprintf(usage, sizeof usage, "%d", 224 * count); const char *u[3] = {"{1}", "", "{0}"}; char ub[40]; snprintf(ub, sizeof ub, "{%s}", usage); u[1] = ub;
  send_("INSERT INTO zone_usage (zone_id, record_bytes, asset_bytes) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) ON CONFLICT (zone_id) DO UPDATE SET record_bytes = zone_usage.record_bytes + excluded.record_bytes, asset_bytes = zone_usage.asset_bytes + excluded.asset_bytes", 3, u, NULL, NULL);
  send_("RELEASE SAVEPOINT stratus_sp1", 0, NULL, NULL, NULL);
  for (int c = 0; c < 12; c++) free(r.a[c].b.data);
  for (int c = 0; c < 9; c++) free(r.f[c].b.data);
}

int main(int argc, char **argv) {
  if (argc < 5) { fprintf(stderr, "usage: raw URL each|grouped GROUPS GROUPSIZE\n"); return 2; }
  char path[64]; open_bench(argv[1], path);
  binary = 1; int grouped = strcmp(argv[2], "grouped") == 0, groups = atoi(argv[3]), size = atoi(argv[4]);
  long pg0 = cpu_ticks(path), pg1 = 0;
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
  pg1 = cpu_ticks(path);
  double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  double client = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
  double pg = (pg1 - pg0) / 100.0; int n = groups * size;
  printf("%s, groups of %d: %d records in %.3f s = %.0f records/s; %.2f round trips per record; per record: wall %.1f us, PostgreSQL backend CPU %.1f us, client CPU %.1f us\n", argv[2], size, n, wall, n / wall, (double)trips / n, wall / n * 1e6, pg / n * 1e6, client / n * 1e6);
  return 0;
}
