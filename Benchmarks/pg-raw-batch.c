/* The raw PostgreSQL limit of RecordsBench scenario 1 (batched creates): the statements Stratus sends
   for a batch of creates, in its three pipelines (BEGIN + zone + schema; zone lock + batch read +
   subscription question; usage + log position + records + index rows + COMMIT), from one libpq
   connection with nothing else in the loop. Arrays go in text format (array literals, as before
   branch pgbatch) or PostgreSQL's binary format (as after). Prints records/s and, per record, the
   wall time, the CPU of the PostgreSQL backend (from /proc: run on the server's machine) and the
   client's CPU. RAW_SKIP_INDEX=1 / RAW_SKIP_RECORDS=1 leave out the field_index / records insert.

     cc -O2 -o /tmp/pg-raw-batch Benchmarks/pg-raw-batch.c -I/usr/include/postgresql -lpq
     Scripts/test-postgres.sh run sh -c '/tmp/pg-raw-batch "$STRATUS_POSTGRES_URL" binary 50 200'
*/
#include "pg-raw-common.h"

int main(int argc, char **argv) {
  if (argc < 5) { fprintf(stderr, "usage: raw URL text|binary BATCHES BATCHSIZE\n"); return 2; }
  char path[64]; open_bench(argv[1], path);
  binary = strcmp(argv[2], "binary") == 0; int batches = atoi(argv[3]), size = atoi(argv[4]);
  long pg0 = cpu_ticks(path), pg1 = 0;
  PQenterPipelineMode(conn);
  struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0); struct rusage r0, r1; getrusage(RUSAGE_SELF, &r0);
  int64_t seq = 0;
  for (int b = 0; b < batches; b++) {
    { const char *v[5] = {C, E, S, O, "r"};
      send_("BEGIN ISOLATION LEVEL READ COMMITTED", 0, NULL, NULL, NULL);
      send_("SELECT id, container, environment, scope, owner, zone_name, change_seq, db_seq, created_at, deleted FROM zones\n\tWHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND zone_name = $5 AND NOT deleted", 5, v, NULL, NULL);
      send_("SELECT body FROM schemas WHERE container = $1 AND environment = $2", 2, v, NULL, NULL); sync_(); }
    char name[64]; arr names; arr_begin(&names, 25);
    for (int i = 0; i < size; i++) { int k = snprintf(name, sizeof name, "r-%d", b * size + i); arr_str(&names, name, k); }
    { const char *v[2]; int len[2] = {0, 0}, fmt[2] = {0, 0}; v[0] = "1"; arr_end(&names, &v[1], &len[1], &fmt[1], 0);
      send_("SELECT id, container, environment, scope, owner, zone_name, change_seq, db_seq, created_at, deleted FROM zones WHERE id = $1 AND NOT deleted FOR UPDATE", 1, v, NULL, NULL);
      send_("SELECT zone_id, record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by, created_device, modified_at, modified_by, modified_device FROM records WHERE zone_id = $1 AND record_name = ANY($2::text[])", 2, v, len, fmt);
      const char *q[20] = {C, E, S, O, "Item", "r", "1", C, E, S, O, "Item", "1", C, E, S, O, "r", "1", "1"};
      send_("SELECT subscriber, body, created_at FROM (SELECT * FROM (SELECT subscriber, subscription_id, body, created_at FROM subscriptions WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND record_type = $5 AND zone_name = $6 ORDER BY container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id LIMIT $7) AS arm UNION ALL SELECT * FROM (SELECT subscriber, subscription_id, body, created_at FROM subscriptions WHERE container = $8 AND environment = $9 AND scope = $10 AND owner = $11 AND record_type = $12 AND zone_name IS NULL ORDER BY container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id LIMIT $13) AS arm UNION ALL SELECT * FROM (SELECT subscriber, subscription_id, body, created_at FROM subscriptions WHERE container = $14 AND environment = $15 AND scope = $16 AND owner = $17 AND record_type IS NULL AND zone_name = $18 ORDER BY container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id LIMIT $19) AS arm) AS candidates ORDER BY subscriber, subscription_id LIMIT $20", 20, q, NULL, NULL);
      sync_(); free(names.b.data); }
    rowset r; rows_begin(&r);
    for (int i = 0; i < size; i++) rows_add(&r, b * size + i, &seq);
    rows_end(&r);
    char usage[32]; snprintf(usage, sizeof usage, "%d", 44749); const char *u[3] = {"1", usage, "0"};
    send_("INSERT INTO zone_usage (zone_id, record_bytes, asset_bytes) VALUES ($1, $2, $3) ON CONFLICT (zone_id) DO UPDATE SET record_bytes = zone_usage.record_bytes + excluded.record_bytes, asset_bytes = zone_usage.asset_bytes + excluded.asset_bytes", 3, u, NULL, NULL);
    char seqs[32]; snprintf(seqs, sizeof seqs, "%lld", (long long)seq); const char *w[2] = {"1", seqs};
    send_("WITH zone AS (SELECT container, environment, scope, owner FROM zones WHERE id = $1 AND NOT deleted), position AS (INSERT INTO databases (container, environment, scope, owner, change_seq) SELECT container, environment, scope, owner, 1 FROM zone ON CONFLICT (container, environment, scope, owner) DO UPDATE SET change_seq = databases.change_seq + 1 RETURNING change_seq) UPDATE zones SET db_seq = position.change_seq, change_seq = coalesce($2, zones.change_seq) FROM position WHERE zones.id = $1", 2, w, NULL, NULL);
    if (!getenv("RAW_SKIP_RECORDS")) send_("INSERT INTO records (zone_id, record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by, created_device, modified_at, modified_by, modified_device) SELECT z, n, t, tag, s, false, f, ca, cb, cd, ma, mb, md FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bytea[], $7::bigint[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::text[]) AS u(z, n, t, tag, s, f, ca, cb, cd, ma, mb, md) ON CONFLICT (zone_id, record_name) DO UPDATE SET record_type = excluded.record_type, change_tag = excluded.change_tag, seq = excluded.seq, deleted = false, fields = excluded.fields, created_at = excluded.created_at, created_by = excluded.created_by, created_device = excluded.created_device, modified_at = excluded.modified_at, modified_by = excluded.modified_by, modified_device = excluded.modified_device", 12, r.v, r.len, r.fmt);
    if (!getenv("RAW_SKIP_INDEX")) send_("INSERT INTO field_index (zone_id, record_name, record_type, field_name, ordinal, vi, vr, vr2, vt) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::float8[], $8::float8[], $9::text[])", 9, r.fv, r.flen, r.ffmt);
    send_("COMMIT", 0, NULL, NULL, NULL);
    sync_();
    for (int c = 0; c < 12; c++) free(r.a[c].b.data);
    for (int c = 0; c < 9; c++) free(r.f[c].b.data);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1); getrusage(RUSAGE_SELF, &r1);
  pg1 = cpu_ticks(path);
  double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  double client = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
  double pg = (pg1 - pg0) / 100.0; int n = batches * size;
  printf("%s: %d records in %.3f s = %.0f records/s; per record: wall %.1f us, PostgreSQL backend CPU %.1f us, client CPU %.1f us\n", argv[2], n, wall, n / wall, wall / n * 1e6, pg / n * 1e6, client / n * 1e6);
  return 0;
}
