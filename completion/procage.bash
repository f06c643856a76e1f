# bash completion for procage(1). Installed as
# $(datadir)/bash-completion/completions/procage.

_procage()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi

	local verbs="run exec learn facts check fit profiles trust changes help"
	local run_opts="--policy --trust-policy --no-config --dry-run --profile --read --write --write-new --protect --hide --socket --net
		--allow-host --allow-ssh --publish --ask --ask-timeout --explain --report --report-json --env --setenv --no-private-tmp --changes --apply --limit
		--accept --waive --hardlinks --hardlink-exempt --audit --on-handoff-change --lifetime --terminal
		--timeout --grace --cwd --json --help"
	local exec_opts="--policy --trust-policy --no-config --dry-run --profile --read --write --write-new --protect --hide --socket --net
		--allow-host --allow-ssh --publish --ask --ask-timeout --report --report-json --env --setenv --no-private-tmp --changes --apply --limit
		--accept --waive --hardlinks --hardlink-exempt --lifetime --terminal --cwd
		--json --help"

	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$verbs --help --version" -- "$cur"))
		return
	fi
	local verb=${words[1]} i
	# After "--" or the command's name, complete the command and its arguments.
	# learn takes the options of run.
	if [ "$verb" = run ] || [ "$verb" = exec ] || [ "$verb" = learn ]; then
		for ((i = 2; i < cword; i++)); do
			case ${words[i]} in
			--) break ;;
			--policy | --profile | --read | --write | --write-new | --protect | --hide | --socket | --net | \
			--allow-host | --allow-ssh | --publish | --ask-timeout | --explain | --report-json | --env | --setenv | --limit | --accept | \
			--waive | --hardlinks | --hardlink-exempt | --on-handoff-change | --lifetime | \
			--terminal | --timeout | --grace | --cwd) ((i++)) ;;
			-*) ;;
			*) break ;;
			esac
		done
		if [ "$i" -lt "$cword" ]; then
			if [ "$((i + 1))" -eq "$cword" ] && [ "${words[i]}" = -- ]; then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		fi
		case $prev in
		--policy | --report-json) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		--read | --write | --write-new | --protect | --hide | --socket | --hardlink-exempt | --cwd)
			COMPREPLY=($(compgen -f -- "$cur")); return ;;
		--net) COMPREPLY=($(compgen -W "off on proxy loopback" -- "$cur")); return ;;
		--profile)
			COMPREPLY=($(compgen -W "$(procage profiles 2>/dev/null |
				sed -n 's/^  \([a-z0-9_-]*\) .*/\1/p')" -- "$cur"))
			return ;;
		--accept)
			COMPREPLY=($(compgen -W "spawn-snapshot entry-grants proc-other-processes listing-shows-hidden-names host-loopback" \
				-- "$cur"))
			return ;;
		--waive)
			COMPREPLY=($(compgen -W "secrets trust-handoff persistence service-handoff
				container-engines process-access workspace-config" -- "$cur"))
			return ;;
		--hardlinks) COMPREPLY=($(compgen -W "refuse report" -- "$cur")); return ;;
		--on-handoff-change) COMPREPLY=($(compgen -W "report fail" -- "$cur")); return ;;
		--explain) COMPREPLY=($(compgen -W "on all off" -- "$cur")); return ;;
		--lifetime) COMPREPLY=($(compgen -W "session tree" -- "$cur")); return ;;
		--terminal) COMPREPLY=($(compgen -W "inherit" -- "$cur")); return ;;
		--env) COMPREPLY=($(compgen -e -- "$cur")); return ;;
		--limit)
			COMPREPLY=($(compgen -S = -W "as core cpu data fsize locks memlock msgqueue
				nice nofile nproc rss rtprio rttime sigpending stack memory pids" \
				-- "$cur"))
			compopt -o nospace 2>/dev/null
			return ;;
		--allow-host | --allow-ssh | --publish | --ask-timeout | --setenv | --timeout | --grace) return ;;
		esac
		if [ "$verb" != exec ]; then
			COMPREPLY=($(compgen -W "$run_opts --" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$exec_opts --" -- "$cur"))
		fi
		return
	fi
	case $verb in
	facts | profiles) COMPREPLY=($(compgen -W "--json --help" -- "$cur")) ;;
	trust)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
		fi ;;
	check)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--json --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
		fi ;;
	fit)
		if [ "$prev" = --policy ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		else
			COMPREPLY=($(compgen -W "--json --policy --help" -- "$cur"))
		fi ;;
	help) [ "$cword" -eq 2 ] && COMPREPLY=($(compgen -W "$verbs" -- "$cur")) ;;
	esac
}
complete -F _procage procage
