#!/usr/bin/env bash
# Demo router (OpsDeck demo: opsdeck-sim plays the SGLang PD router).
# A real one would exec: python3 -m sglang_router.launch_router --pd-disaggregation ...
exec "@SIM@" --role router --host 127.0.0.1 --port @ROUTER_PORT@ \
  --metrics-port @ROUTER_METRICS_PORT@ \
  --prefill http://127.0.0.1:@PREFILL_PORT@ --prefill-bootstrap-port @BOOTSTRAP_PORT@ \
  --decode http://127.0.0.1:@DECODE_PORT@ @ROUTER_FAULT@
