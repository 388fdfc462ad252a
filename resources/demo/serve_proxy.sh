#!/usr/bin/env bash
# Demo client-side proxy (OpsDeck demo: opsdeck-sim plays a keep-alive reverse proxy).
exec "@SIM@" --role proxy --host 127.0.0.1 --port @PROXY_PORT@ \
  --upstream http://127.0.0.1:@ROUTER_PORT@ @PROXY_FAULT@
