#!/usr/bin/env bash
# Demo traffic: @CLIENTS@ agentic clients making multi-round chat calls through the proxy.
exec "@SIM@" --role traffic --target http://127.0.0.1:@PROXY_PORT@ --clients @CLIENTS@
