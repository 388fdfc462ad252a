#include "simoptions.h"

namespace opsdeck::sim {

std::string SimOptions::helpText()
{
    return R"(opsdeck-sim: one service of a simulated SGLang prefill/decode (PD) cluster on a
loopback port.

usage: opsdeck-sim --role prefill|decode|engine|router|proxy|traffic [flags]

Logs go to stderr, one timestamped line each ("YYYY-MM-DD HH:MM:SS.mmm LEVEL ROLE: text").
On start the main server logs exactly one "listening on http://HOST:PORT" line (the router then
also "metrics listening on http://HOST:PORT"). SIGTERM/SIGINT stop the servers, join the threads
and exit 0. A port already in use: error naming the port, exit 2. Bad flags: exit 2.

ALL ROLES
  --role R                   prefill | decode | engine (non-PD) | router | proxy | traffic
  --host H                   listen address (default 127.0.0.1)
  --port P                   main port; 0 = pick a free one (default 30000; proxy 8080; traffic 0).
                             With --port 0, --disaggregation-bootstrap-port and --metrics-port
                             also default to 0.
  --threads N                HTTP worker threads (default 0 = auto: engines
                             max(2 x dp x max-running-requests, 512) + 32, router/proxy 544).
                             One kept-alive connection holds one thread for its whole life, so a
                             batch needs one thread per client (running, waiting or idle).
  --keep-alive-timeout S     idle seconds before a kept-alive connection is closed (default 60)
  --keep-alive-max-count N   requests served on one connection before it is closed (default 1000)
  --read-timeout S           server read timeout (default 30)
  --write-timeout S          server write timeout (default 30)
  --upstream-timeout S       read timeout of forwarding clients, router and proxy (default 600)
  --api-key KEY              as SGLang's --api-key: the main (or proxy) server answers 401
                             {"error":"Unauthorized"} unless "Authorization: Bearer KEY"; OPTIONS
                             and paths starting with /health or /metrics stay open
  --tls-cert FILE --tls-key FILE
                             serve HTTPS on the main (or proxy) server with this PEM certificate
                             chain and key; the "listening on" line then says https://
  --fault reused-stall=S     connection-scoped fault (router and proxy): a request arriving on a
                             client connection that already served N requests waits S seconds
                             before it is handled/forwarded; fresh connections pass at once.
                             "none" disables it (default none).
  --fault scheduler-stuck    engines: requests are queued but the scheduler never admits one, so
                             waiting > 0 and running == 0 until the client gives up (it is then
                             dropped from the queue). Combines with reused-stall; repeat --fault.
  --fault-after N            N for the fault above (default 1: the 2nd request on a
                             connection stalls)
  --log-requests             one log line per HTTP request: server, method, path, status, client
                             address and the request's number on its connection
  --log-interval S           period of the engines' "Prefill batch." and "Decode batch." lines
                             (default 5)

ENGINES (--role prefill | decode | engine)
  --served-model-name NAME   model name reported and used as metric label (default Qwen/Qwen3-8B);
                             --model-path is an alias. Any model name is accepted in requests.
  --ready-delay S            /health answers 503 until S seconds after start (default 2)
  --dp N                     data-parallel ranks; each rank has its own scheduler thread, batch
                             and metric series (dp_rank label). Requests go round-robin over
                             ranks; PD requests to rank bootstrap_room % N. (default 1)
  --tp N                     reported only (default 1)
  --max-running-requests N   per-rank batch limit; the rest wait in the queue (default 64)
  --decode-log-interval N    as SGLang: the /metrics scheduler gauges (num_running_reqs,
                             num_queue_reqs, num_used_tokens, token_usage, gen_throughput,
                             utilization, the PD queue gauges) are written after each prefill step,
                             every N decode steps and every 30 s when idle, and hold their value
                             in between; counters, histograms and /v1/loads stay live (default 40)
  --chunked-prefill-size N   prompt tokens per prefill step (default 8192)
  --max-total-tokens N       KV pool size in tokens (default 262144): token_usage = used / N, and
                             a request is admitted only while prompt + max_tokens of all admitted
                             requests fit (an empty batch always admits one)
  --transfer-backend B       mooncake | nixl, reported in /server_info (default mooncake)
  --disaggregation-bootstrap-port P
                             prefill's bootstrap (KV handoff) server; 0 = free port, reported in
                             /server_info (default 8998, as SGLang)
  --kv-transfer-timeout S    decode gives up waiting for a room's KV after S s (default 30)
  --decode-step-base-ms A    (default 10)
  --decode-step-per-req-ms B (default 0.4)
  --prefill-step-base-ms C   (default 8)
  --prefill-step-per-token-ms D (default 0.05)
  Streaming test knobs (a stream always starts with the role chunk, delta
  {"role":"assistant","content":""}, as SGLang's):
  --stream-empty-first-chunk after the role chunk, send one more chunk with delta {"content":""}
                             (an empty first content chunk that is not the first token)
  --stream-split-events      write every SSE event in two writes split mid-JSON, 20 ms apart, so
                             a client receives each event across two reads
  --first-token-delay-ms MS  send the first content token no earlier than MS after the role chunk
                             (TTFT clearly later than the first byte; default 0, max 60000)

  Step model (one scheduler loop per rank, steps scheduled on absolute steady-clock deadlines):
    decode step_ms(batch)   = (A + B x batch) / (1 + gain(batch)); every running request gets one
                              token per step. Defaults: step(1)=10.4, step(16)=16.4, step(64)=35.6,
                              step(96)=48.4 ms -> decode tokens/s = batch x 1000 / step_ms.
    prefill step_ms(tokens) = C + D x tokens, tokens <= --chunked-prefill-size, shared by all
                              requests waiting for prefill (they reach decode together). A prefill
                              step, when one is pending, runs before the next decode step.
    Waiting requests are admitted at step boundaries up to --max-running-requests and while the
    KV pool holds them (--max-total-tokens). The prefill produces the first token, decode the
    remaining max_tokens - 1.
  Knobs read from the environment at start (logged):
    SGLANG_SM120_MMA_TARGET_CTAS=512  decode gain(batch): 0 up to batch 16, linear to 13 % at 64,
                              linear down to 6 % at 96, 6 % beyond. Other values: no effect.
  Tokens: prompt_tokens = ceil(UTF-8 bytes of all messages[].content / 4), at least 1;
    completion_tokens = max_tokens (default 16; max_completion_tokens also read), finish_reason
    "length". Text is deterministic per prompt, so streamed and non-streamed content are equal.

  Endpoints: GET /health, /health_generate (503 while starting, then 200), /server_info,
    /get_server_info, /v1/models, /v1/loads (SGLang shape, ?dp_rank=N), /metrics (SGLang
    Prometheus families, labels dp_rank engine_type model_name pp_rank tp_rank);
    POST /v1/chat/completions (OpenAI shape; "stream": true gives SSE chat.completion.chunk
    events and "data: [DONE]"; stream_options.include_usage adds a usage chunk; bad JSON -> 400).
  PD: a request with bootstrap_host/bootstrap_port/bootstrap_room is, on a prefill, prefilled
    only (1 token) and its KV handed over under that room; on a decode it waits for that room's KV
    from the prefill's bootstrap server (GET /route handshake, GET /kv?bootstrap_room=R long poll),
    then decodes. Unreachable bootstrap server -> sglang:num_bootstrap_failed_reqs_total, room not
    ready within --kv-transfer-timeout -> sglang:num_transfer_failed_reqs_total; both answer 500.

ROUTER (--role router)
  --prefill URL [BOOTSTRAP_PORT]  prefill worker (repeatable); without a port it is read from the
                             worker's /server_info
  --prefill-bootstrap-port P bootstrap port of the preceding --prefill
  --decode URL               decode worker (repeatable)
  --metrics-port P           Prometheus port for sgl_router_* metrics, 0 = free (default 29000)
  --health-check-interval S  worker /health poll period (default 1); a worker turns healthy after
                             one 200 and unhealthy after two failures
  Endpoints: GET /health (200 once up), /readiness (200 when >= 1 prefill and >= 1 decode are
    healthy, else 503), /workers (SGLang gateway shape), /v1/models; POST /v1/chat/completions:
    picks a prefill and a decode (round-robin over healthy workers), adds bootstrap_host,
    bootstrap_port and a random 63-bit bootstrap_room, sends to both at once and returns the
    decode answer (SSE passes through as it arrives). GET /metrics on --metrics-port.

PROXY (--role proxy)
  --upstream URL             HTTP/1.1 keep-alive reverse proxy: forwards method, path, query,
                             body and end-to-end headers (Authorization, Content-Type, ...),
                             streams SSE through. Takes the --fault flags.

TRAFFIC (--role traffic)
  --target URL               where to send chat completions (router, proxy or engine)
  --clients N                client threads, one keep-alive connection each, 1..256 (default 4)
  --max-tokens T             max_tokens per request (default 32)
  --idle-gap-ms MS           mean think time between rounds, uniform in [MS/2, 3MS/2] (default 200)
  --rounds R                 rounds per conversation before it starts over (default 4)
  --stream                   use SSE streaming requests
  --duration S               stop after S seconds (default 0 = until SIGTERM)
  --requests N               stop after N requests in total (default 0 = unlimited)
  Logs one summary line per N (= clients) completed requests. Serves GET /health and GET /stats
  (JSON counters) on --port (default 0 = free port).
)";
}

} // namespace opsdeck::sim
