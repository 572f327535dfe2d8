/* SPDX-License-Identifier: Apache-2.0 */
/* shm_traffic: seeded random traffic among all ranks of a `nicsim shm-run` run through the C
 * API (ulp/shm/shm_api.h), every byte checked, exactly once and in order per source. */
/*
 * nicsim shm-run -n N shm_traffic [--seed S] [--messages M] [--max-bytes B]
 *                                 [--kill-rank R --kill-after K] [--hang] [--liveness]
 *
 * Every rank sends M messages to every other rank (to itself when N is 1) in an order shuffled
 * from the seed, with sizes from 0 to B bytes (inline, one piece, several pieces). A message
 * is a header (source, destination, sequence per pair, length, checksum) and payload bytes
 * that any rank can regenerate. Each rank sends all, then receives: half from any source, the
 * rest source by source. It exits 0 when every message arrived once, in order and intact.
 *
 * --kill-rank R --kill-after K: rank R raises SIGKILL after K sends. The others then expect
 * from R exactly the messages among its first K addressed to them, and then EPEERDEAD; they
 * print "rank X: EPEERDEAD from rank R after C messages" and still exit 0.
 * --hang: every rank passes one message round the ring, says "rank X: ready" and waits for a
 * message no one sends (for tests of the launcher's signals and timeout).
 * --liveness (3 ranks): the liveness rule. Rank 0 sends rank 1 a message larger than its
 * quota; rank 1 does not receive it but dies, and the waiting send fails with EPEERDEAD. Rank 2
 * sends rank 0 one message 0.2 s after seeing rank 1 dead, then finalizes; rank 0 receives
 * from any rank twice and must get the message first and EPEERDEAD naming rank 1 second.
 */
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ulp/shm/shm_api.h"

enum { kHeaderBytes = 32 };
static const uint32_t kMagic = 0x54524146u; /* "TRAF" */

/** The first bytes of every message. */
struct Header {
  uint32_t magic;
  uint32_t src;
  uint32_t dst;
  uint32_t seq; /* per (src, dst), from 0 */
  uint32_t len; /* payload bytes after the header */
  uint32_t reserved;
  uint64_t checksum; /* FNV-1a of the payload */
};

static uint64_t g_seed = 1;
static int g_rank = -1;

static uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t Key(uint32_t src, uint32_t dst, uint32_t seq) {
  return Mix(g_seed ^ Mix(((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ seq));
}

/** Payload bytes of message `seq` from `src` to `dst`: sizes of every kind the engine has. */
static uint32_t PayloadLen(uint32_t src, uint32_t dst, uint32_t seq, uint32_t max_bytes) {
  const uint64_t k = Key(src, dst, seq);
  uint32_t len;
  switch (k % 4) {
    case 0: /* inline in the postbox slot with the header */
      len = (uint32_t)((k >> 8) % 33);
      break;
    case 1: /* one piece */
      len = (uint32_t)((k >> 8) % 4096);
      break;
    case 2: /* two to four pieces */
      len = 4096 + (uint32_t)((k >> 8) % 8200);
      break;
    default: /* anything up to --max-bytes */
      len = (uint32_t)((k >> 8) % (max_bytes + 1));
      break;
  }
  return len > max_bytes ? max_bytes : len;
}

static uint8_t PayloadByte(uint64_t key, uint32_t i) {
  return (uint8_t)(Mix(key + i / 8) >> (8 * (i % 8)));
}

static uint64_t Fnv(const uint8_t* p, uint32_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/** Rank `src`'s sends in order: each other rank (itself when alone) `m` times, shuffled. */
static uint32_t* Plan(uint32_t src, uint32_t n, uint32_t m, uint32_t* count) {
  const uint32_t peers = n == 1 ? 1 : n - 1;
  *count = peers * m;
  uint32_t* dests = malloc(sizeof(uint32_t) * (*count > 0 ? *count : 1));
  uint32_t k = 0;
  for (uint32_t d = 0; d < n; ++d) {
    if (d == src && n > 1) continue;
    for (uint32_t i = 0; i < m; ++i) dests[k++] = d;
  }
  uint64_t state = Mix(g_seed * 31 + src);
  for (uint32_t i = *count; i > 1; --i) {
    state = Mix(state);
    const uint32_t j = (uint32_t)(state % i);
    const uint32_t t = dests[i - 1];
    dests[i - 1] = dests[j];
    dests[j] = t;
  }
  return dests;
}

static void Failed(const char* what, int code) {
  printf("rank %d: FAILED: %s: %s (%s) (seed %llu)\n", g_rank, what,
         code != 0 ? nicsim_shm_strerror(code) : "", code != 0 ? nicsim_shm_last_error() : "",
         (unsigned long long)g_seed);
  exit(1);
}

/** Checks one received message against what `src` must have sent as its `seq`-th to us. */
static void Check(const uint8_t* buf, size_t len, int src, uint32_t expected_seq,
                  uint32_t max_bytes) {
  struct Header h;
  char what[160];
  if (len < kHeaderBytes) {
    snprintf(what, sizeof(what), "a message of %zu bytes from rank %d", len, src);
    Failed(what, 0);
  }
  memcpy(&h, buf, sizeof(h));
  const uint32_t want_len = PayloadLen((uint32_t)src, (uint32_t)g_rank, expected_seq, max_bytes);
  if (h.magic != kMagic || h.src != (uint32_t)src || h.dst != (uint32_t)g_rank) {
    snprintf(what, sizeof(what), "message from rank %d has a foreign header", src);
    Failed(what, 0);
  }
  if (h.seq != expected_seq) {
    snprintf(what, sizeof(what),
             "from rank %d: sequence %u where %u was due (lost, duplicated "
             "or out of order)",
             src, h.seq, expected_seq);
    Failed(what, 0);
  }
  if (h.len != want_len || len != kHeaderBytes + (size_t)want_len) {
    snprintf(what, sizeof(what), "from rank %d seq %u: %zu bytes, %u due", src, h.seq, len,
             kHeaderBytes + want_len);
    Failed(what, 0);
  }
  const uint8_t* payload = buf + kHeaderBytes;
  const uint64_t key = Key((uint32_t)src, (uint32_t)g_rank, h.seq);
  if (Fnv(payload, h.len) != h.checksum) {
    snprintf(what, sizeof(what), "from rank %d seq %u: checksum mismatch", src, h.seq);
    Failed(what, 0);
  }
  for (uint32_t i = 0; i < h.len; ++i) {
    if (payload[i] != PayloadByte(key, i)) {
      snprintf(what, sizeof(what), "from rank %d seq %u: byte %u differs", src, h.seq, i);
      Failed(what, 0);
    }
  }
}

int main(int argc, char** argv) {
  uint32_t messages = 50, max_bytes = 12000;
  int kill_rank = -1, hang = 0, liveness = 0;
  long kill_after = -1;
  static const struct option kOptions[] = {
      {"seed", required_argument, 0, 's'},       {"messages", required_argument, 0, 'm'},
      {"max-bytes", required_argument, 0, 'b'},  {"kill-rank", required_argument, 0, 'r'},
      {"kill-after", required_argument, 0, 'k'}, {"hang", no_argument, 0, 'h'},
      {"liveness", no_argument, 0, 'l'},         {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", kOptions, NULL)) != -1) {
    switch (c) {
      case 's':
        g_seed = strtoull(optarg, NULL, 10);
        break;
      case 'm':
        messages = (uint32_t)strtoul(optarg, NULL, 10);
        break;
      case 'b':
        max_bytes = (uint32_t)strtoul(optarg, NULL, 10);
        break;
      case 'r':
        kill_rank = atoi(optarg);
        break;
      case 'k':
        kill_after = atol(optarg);
        break;
      case 'h':
        hang = 1;
        break;
      case 'l':
        liveness = 1;
        break;
      default:
        fprintf(stderr,
                "usage: shm_traffic [--seed S] [--messages M] [--max-bytes B] "
                "[--kill-rank R --kill-after K] [--hang] [--liveness]\n");
        return 2;
    }
  }
  /* Lines from several processes share one output: whole lines, at once. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  int rc = nicsim_shm_init();
  if (rc != NICSIM_SHM_OK) {
    fprintf(stderr, "shm_traffic: nicsim_shm_init: %s: %s\n", nicsim_shm_strerror(rc),
            nicsim_shm_last_error());
    return 1;
  }
  g_rank = nicsim_shm_rank();
  const uint32_t n = (uint32_t)nicsim_shm_size();
  const uint32_t me = (uint32_t)g_rank;
  const size_t cap = kHeaderBytes + (size_t)max_bytes;
  uint8_t* buf = malloc(cap);

  if (hang) {
    /* One message round the ring first, so every rank's segments exist while it waits. */
    size_t len = 0;
    int src = -1;
    rc = nicsim_shm_send((int)((me + 1) % n), "ring", 4);
    if (rc != NICSIM_SHM_OK) Failed("send round the ring", rc);
    rc = nicsim_shm_recv((int)((me + n - 1) % n), buf, cap, &len, &src);
    if (rc != NICSIM_SHM_OK || len != 4) Failed("receive round the ring", rc);
    printf("rank %d: ready\n", g_rank);
    rc = nicsim_shm_recv(NICSIM_SHM_ANY_SOURCE, buf, cap, &len, &src);
    printf("rank %d: the wait ended: %s (%s)\n", g_rank, nicsim_shm_strerror(rc),
           nicsim_shm_last_error());
    nicsim_shm_finalize();
    free(buf);
    return rc == NICSIM_SHM_OK ? 1 : 0;
  }

  if (liveness) {
    /* Rank 1 dies while rank 0's send to it waits. Rank 2 sees that (its receive fails),
     * waits, sends rank 0 one message and finalizes. Rank 0's receives from any rank must yield
     * that message first, although rank 1 was dead before it was sent, and only then
     * EPEERDEAD naming rank 1. */
    size_t len = 0;
    int src = -1;
    if (n != 3) Failed("--liveness needs 3 ranks", 0);
    struct timespec pause = {0, 200000000};
    if (me == 1) {
      /* Alive while rank 0 starts a send larger than its quota, but never polling (a receive
       * would drain it), then dead. */
      rc = nicsim_shm_send(0, "ready", 5);
      if (rc != NICSIM_SHM_OK) Failed("send to rank 0", rc);
      struct timespec longer = {0, 500000000};
      nanosleep(&longer, NULL);
      raise(SIGKILL);
    }
    if (me == 2) {
      rc = nicsim_shm_recv(1, buf, cap, &len, &src);
      printf("rank 2: receive from rank 1: %s\n", nicsim_shm_strerror(rc));
      nanosleep(&pause, NULL);
      rc = nicsim_shm_send(0, "late", 4);
      if (rc != NICSIM_SHM_OK) Failed("send to rank 0", rc);
    } else {
      /* 64 KiB is 16 pieces, twice rank 1's quota of blocks: the send must wait for rank 1,
       * which dies instead. */
      rc = nicsim_shm_recv(1, buf, cap, &len, &src);
      if (rc != NICSIM_SHM_OK) Failed("receive from rank 1", rc);
      uint8_t* big = calloc(65536, 1);
      rc = nicsim_shm_send(1, big, 65536);
      free(big);
      printf("rank 0: send of 65536 bytes to rank 1: %s (%s)\n", nicsim_shm_strerror(rc),
             nicsim_shm_last_error());
      rc = nicsim_shm_recv(NICSIM_SHM_ANY_SOURCE, buf, cap, &len, &src);
      printf("rank 0: receive from any: %s, %zu bytes from rank %d\n", nicsim_shm_strerror(rc), len,
             src);
      rc = nicsim_shm_recv(NICSIM_SHM_ANY_SOURCE, buf, cap, &len, &src);
      printf("rank 0: receive from any: %s, rank %d (%s)\n", nicsim_shm_strerror(rc), src,
             nicsim_shm_last_error());
    }
    nicsim_shm_finalize();
    free(buf);
    return 0;
  }

  /* Send everything planned. */
  uint32_t planned = 0;
  uint32_t* plan = Plan(me, n, messages, &planned);
  uint32_t* next_seq_to = calloc(n, sizeof(uint32_t));
  uint8_t* refused_by = calloc(n, 1);
  uint32_t sent = 0, refused = 0;
  for (uint32_t i = 0; i < planned; ++i) {
    if (g_rank == kill_rank && (long)sent == kill_after) {
      printf("rank %d: raising SIGKILL after %u messages\n", g_rank, sent);
      raise(SIGKILL);
    }
    const uint32_t dst = plan[i];
    struct Header h = {kMagic, me, dst, next_seq_to[dst]++, 0, 0, 0};
    h.len = PayloadLen(me, dst, h.seq, max_bytes);
    const uint64_t key = Key(me, dst, h.seq);
    for (uint32_t b = 0; b < h.len; ++b) buf[kHeaderBytes + b] = PayloadByte(key, b);
    h.checksum = Fnv(buf + kHeaderBytes, h.len);
    memcpy(buf, &h, sizeof(h));
    if (refused_by[dst]) {
      ++refused;
      continue;
    }
    rc = nicsim_shm_send((int)dst, buf, kHeaderBytes + (size_t)h.len);
    if (rc == NICSIM_SHM_EPEERDEAD && (int)dst == kill_rank) {
      printf("rank %d: send to rank %u refused: %s\n", g_rank, dst, nicsim_shm_last_error());
      refused_by[dst] = 1;
      ++refused;
      continue;
    }
    if (rc != NICSIM_SHM_OK) Failed("send", rc);
    ++sent;
  }

  /* What must arrive from each rank: its planned messages to us, or from the rank that is
   * killed, those among its first K. */
  uint32_t* expected = calloc(n, sizeof(uint32_t));
  uint32_t total = 0;
  for (uint32_t s = 0; s < n; ++s) {
    uint32_t count = 0;
    uint32_t* theirs = Plan(s, n, messages, &count);
    if ((int)s == kill_rank && kill_after >= 0 && (uint32_t)kill_after < count) {
      count = (uint32_t)kill_after;
    }
    for (uint32_t i = 0; i < count; ++i) expected[s] += theirs[i] == me;
    total += expected[s];
    free(theirs);
  }

  uint32_t* got = calloc(n, sizeof(uint32_t));
  uint32_t received = 0;
  /* Half from any source (checked per source all the same), the rest source by source. */
  for (uint32_t i = 0; i < total / 2; ++i) {
    size_t len = 0;
    int src = -1;
    rc = nicsim_shm_recv(NICSIM_SHM_ANY_SOURCE, buf, cap, &len, &src);
    if (rc != NICSIM_SHM_OK) Failed("receive from any rank", rc);
    if (src < 0 || (uint32_t)src >= n || got[src] >= expected[src]) Failed("an extra message", 0);
    Check(buf, len, src, got[src]++, max_bytes);
    ++received;
  }
  for (uint32_t s = 0; s < n; ++s) {
    while (got[s] < expected[s]) {
      size_t len = 0;
      int src = -1;
      rc = nicsim_shm_recv((int)s, buf, cap, &len, &src);
      if (rc != NICSIM_SHM_OK) Failed("receive", rc);
      Check(buf, len, (int)s, got[s]++, max_bytes);
      ++received;
    }
    if ((int)s == kill_rank && s != me) {
      /* Nothing more may come from the dead rank: the next receive must fail, not hang. */
      size_t len = 0;
      int src = -1;
      rc = nicsim_shm_recv((int)s, buf, cap, &len, &src);
      if (rc != NICSIM_SHM_EPEERDEAD || src != (int)s) Failed("receive from the killed rank", rc);
      printf("rank %d: EPEERDEAD from rank %u after %u messages: %s\n", g_rank, s, got[s],
             nicsim_shm_last_error());
    }
  }
  rc = nicsim_shm_finalize();
  if (rc != NICSIM_SHM_OK) Failed("finalize", rc);
  printf(
      "rank %d: sent %u (%u refused), received %u from %u ranks, every byte checked "
      "(seed %llu)\n",
      g_rank, sent, refused, received, n == 1 ? 1 : n - 1, (unsigned long long)g_seed);
  free(got);
  free(expected);
  free(refused_by);
  free(next_seq_to);
  free(plan);
  free(buf);
  return 0;
}
