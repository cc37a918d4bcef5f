#!/usr/bin/env bash
# Run one assetline pipeline unattended (from cron): keep a dated log, delete old logs, and mail
# someone when the run did not finish cleanly. Exits with assetline's exit code.
#
# Settings (environment variables; the defaults in brackets):
#   ASSETLINE_PROJECT_DIR    the folder with the pipelines, out/ and .assetline/ [the current folder]
#   ASSETLINE_PIPELINE       the pipeline file, relative to the project folder [pipelines/catalog.yaml]
#   ASSETLINE_PIPELINE_NAME  the pipeline's `name:`, which names its folder in out/, for the report
#                            when the run names no manifest (exit 2 or 3)
#                            [the file's name without its extension]
#   ASSETLINE_OUT_DIR        the output folder [out]
#   ASSETLINE_LOG_DIR        where the logs go [$ASSETLINE_PROJECT_DIR/logs]
#   ASSETLINE_LOG_KEEP_DAYS  logs older than this many days are deleted [30]
#   ASSETLINE_MAIL_TO        who is mailed when the exit code is not 0 [nobody]
#   ASSETLINE_BIN            the command that runs assetline [npx --no-install assetline]
#                            (split on spaces: no spaces inside its own words)
#   ASSETLINE_ENV_FILE       a file of VAR=value lines read first, e.g. the API key [none]
#   ASSETLINE_API_KEY, ASSETLINE_BASE_URL   read by assetline itself; this script never prints them
#
# See docs/scheduling.md.
set -euo pipefail

warn() {
  printf 'assetline-nightly: %s\n' "$*" >&2
}

# A file of settings and secrets, so that the key is neither in the crontab nor on a command line.
if [[ -n ${ASSETLINE_ENV_FILE:-} ]]; then
  set -a
  # shellcheck source=/dev/null
  . "$ASSETLINE_ENV_FILE"
  set +a
fi

ASSETLINE_PROJECT_DIR=${ASSETLINE_PROJECT_DIR:-$PWD}
ASSETLINE_PIPELINE=${ASSETLINE_PIPELINE:-pipelines/catalog.yaml}
pipeline_file=${ASSETLINE_PIPELINE##*/}
ASSETLINE_PIPELINE_NAME=${ASSETLINE_PIPELINE_NAME:-${pipeline_file%.*}}
ASSETLINE_OUT_DIR=${ASSETLINE_OUT_DIR:-out}
ASSETLINE_LOG_DIR=${ASSETLINE_LOG_DIR:-$ASSETLINE_PROJECT_DIR/logs}
ASSETLINE_LOG_KEEP_DAYS=${ASSETLINE_LOG_KEEP_DAYS:-30}
ASSETLINE_MAIL_TO=${ASSETLINE_MAIL_TO:-}
ASSETLINE_BIN=${ASSETLINE_BIN:-npx --no-install assetline}
read -r -a assetline_cmd <<<"$ASSETLINE_BIN"

if [[ ! $ASSETLINE_LOG_KEEP_DAYS =~ ^[0-9]+$ ]]; then
  warn "ASSETLINE_LOG_KEEP_DAYS must be a whole number of days, got \"$ASSETLINE_LOG_KEEP_DAYS\""
  exit 2
fi
if [[ ${#assetline_cmd[@]} -eq 0 ]]; then
  warn "ASSETLINE_BIN is empty"
  exit 2
fi
cd "$ASSETLINE_PROJECT_DIR" || {
  warn "cannot enter ASSETLINE_PROJECT_DIR \"$ASSETLINE_PROJECT_DIR\""
  exit 2
}

host=${HOSTNAME:-$(uname -n)}
mkdir -p "$ASSETLINE_LOG_DIR"
log_file="$ASSETLINE_LOG_DIR/assetline-$(date +%Y-%m-%dT%H%M%S).log"
: >>"$log_file"

# Logs older than the keep days (in minutes, so "30 days" means 30 days, not 31).
find "$ASSETLINE_LOG_DIR" -maxdepth 1 -type f -name 'assetline-*.log' \
  -mmin +$((ASSETLINE_LOG_KEEP_DAYS * 24 * 60)) -exec rm -f {} + || warn "could not delete old logs"

# What an exit code means, and what to do about it.
meaning() {
  case $1 in
    0) echo 'done' ;;
    1) echo 'some steps failed' ;;
    2) echo 'invalid pipeline, usage error, or the output folder is locked by another run' ;;
    3) echo 'refused by the plan (budget or quota); nothing was sent' ;;
    4) echo 'stopped by credits, quota or budget; resumable' ;;
    5) echo 'API key refused' ;;
    70) echo 'internal error (a bug)' ;;
    130 | 143) echo 'interrupted; resumable' ;;
    126 | 127) echo 'assetline could not be started' ;;
    *) echo 'unexpected exit code' ;;
  esac
}

what_to_do() {
  case $1 in
    1) echo 'The run finished, but some steps failed: the manifest and the report below say which and why.
The next run retries them (finished steps are reused, not paid again). If the same steps keep
failing, look at their errors.' ;;
    2) echo "Nothing was sent. The log says why: a setting is missing (ASSETLINE_API_KEY,
ASSETLINE_BASE_URL), the pipeline is invalid (\`assetline validate $ASSETLINE_PIPELINE\` lists every
problem), or another run still holds the output folder (its PID and host are in the log: let it
finish, or start the runs further apart)." ;;
    3) echo 'Nothing was sent: the plan does not fit the credit budget or the daily quota left.
Raise budget.max_credits in the pipeline, split the pipeline, or let the quota recover; the report
or the log gives the reasons.' ;;
    4) echo 'The run stopped early: out of credits (402), the daily quota spent (429), or steps deferred
by the budget. What is done is kept. Top up the credits, wait for the quota, or raise the budget:
the next run continues where this one stopped, without paying twice.' ;;
    5) echo 'The service refused the API key (401). Rotate the key and update ASSETLINE_API_KEY where
this job reads it. Nothing more was sent.' ;;
    70) echo 'assetline hit a bug. Please report it with this log (it holds no key). The journal keeps
what was done, so the next run resumes.' ;;
    130 | 143) echo 'The run was stopped by a signal (SIGINT/SIGTERM: a shutdown, a timeout, or someone) and
flushed its journal first. The next run continues where it stopped.' ;;
    126 | 127) echo "The command in ASSETLINE_BIN (\"$ASSETLINE_BIN\") was not found or could not be run.
Cron's PATH is short: put the folder of node and npx in the crontab's PATH." ;;
    *) echo "assetline ended with an exit code it does not use itself (e.g. killed by the system).
The journal makes a rerun safe; look at the log below." ;;
  esac
}

# Mail with `mail` if there is one, else `sendmail -t`. Returns non-zero when nothing was sent.
send_mail() {
  local subject=$1 body=$2
  if [[ -z $ASSETLINE_MAIL_TO ]]; then
    warn "ASSETLINE_MAIL_TO is not set: nobody was mailed"
    return 1
  fi
  if command -v mail >/dev/null 2>&1; then
    printf '%s\n' "$body" | mail -s "$subject" "$ASSETLINE_MAIL_TO"
  elif command -v sendmail >/dev/null 2>&1 || [[ -x /usr/sbin/sendmail ]]; then
    local sendmail_cmd
    sendmail_cmd=$(command -v sendmail || echo /usr/sbin/sendmail)
    {
      printf 'To: %s\nSubject: %s\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n' \
        "$ASSETLINE_MAIL_TO" "$subject"
      printf '%s\n' "$body"
    } | "$sendmail_cmd" -t
  else
    warn "neither mail nor sendmail was found: nobody was mailed"
    return 1
  fi
}

# Run assetline. The key reaches it through the environment only. A SIGTERM or SIGINT sent to the
# whole process group (a shutdown, `timeout`, Ctrl-C) reaches assetline, which flushes its journal
# and exits 130/143; the trap keeps this script alive until then, so it still reports. (A signal
# sent to this script alone is noted and assetline is left to finish its run.)
{
  printf 'assetline-nightly: %s, pipeline %s, started %s\n' "$host" "$ASSETLINE_PIPELINE" "$(date)"
  printf 'assetline-nightly: command: %s run %s --out %s --json --log-file %s\n' \
    "$ASSETLINE_BIN" "$ASSETLINE_PIPELINE" "$ASSETLINE_OUT_DIR" "$log_file"
} >>"$log_file"
trap 'warn "signal received; waiting for assetline to stop"' TERM INT
code=0
summary_file=$(mktemp)
# Both assetline (--log-file) and this redirection append to the log: the lines interleave, whole.
# shellcheck disable=SC2094
"${assetline_cmd[@]}" run "$ASSETLINE_PIPELINE" --out "$ASSETLINE_OUT_DIR" --json --log-file "$log_file" \
  >"$summary_file" 2>>"$log_file" || code=$?
trap - TERM INT
# The --json summary names the manifest, so the report finds the run's folder even when the
# pipeline's name: differs from its file name.
cat "$summary_file" >>"$log_file"
manifest=$(sed -n 's/.*"manifest":"\([^"]*\)".*/\1/p' "$summary_file" | tail -n 1)
rm -f "$summary_file"
printf 'assetline-nightly: exit code %s (%s), finished %s\n' "$code" "$(meaning "$code")" "$(date)" >>"$log_file"

if ((code == 0)); then
  exit 0
fi

# The report of what was done so far. It needs no key, so it runs without one.
run_dir="$ASSETLINE_OUT_DIR/$ASSETLINE_PIPELINE_NAME"
if [[ -n $manifest ]]; then
  run_dir=$(dirname "$manifest")
fi
report_status=0
report=$(unset ASSETLINE_API_KEY && "${assetline_cmd[@]}" report "$run_dir" --md 2>>"$log_file") ||
  report_status=$?
if ((report_status != 0)); then
  report="(no report: \`assetline report $run_dir --md\` exited $report_status; its error is in the log)"
fi

subject="assetline: $ASSETLINE_PIPELINE_NAME exited $code ($(meaning "$code")) on $host"
body="assetline run of $ASSETLINE_PIPELINE on $host exited $code: $(meaning "$code").

$(what_to_do "$code")

Log: $log_file

## Report

$report

## The last 50 lines of the log

$(tail -n 50 "$log_file")"

if ! (unset ASSETLINE_API_KEY && send_mail "$subject" "$body"); then
  # Cron mails what a job prints, where it can: the last way left to tell someone.
  warn "$subject; log: $log_file"
fi
exit "$code"
