#!/bin/sh
# A whole unonet bot in POSIX sh: unonet bot play --exec bots/examples/first_action.sh --address HOST:PORT ...
#
# Each line in is one decision, a JSON object that starts with "required" (docs/bots.md, "The JSON-lines
# bridge"); each line out answers it. When the game waits for this seat ("required":true) it takes the
# first legal action: plays are listed first, so it plays whenever it can (calling UNO with its
# second-to-last card, as a listed play does), else it names red, draws or passes, answers a slap.
# Optional chances (jump-ins, catches, an early UNO call) it lets go: null. At the match's end its input
# closes and it exits.
while IFS= read -r line; do
  case $line in
    '{"required":true'*) echo 0 ;;
    *) echo null ;;
  esac
done
