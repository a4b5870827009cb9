# bash completion for lab: commands, and each command's long options.
# Both come from the lab binary itself (lab --list-commands, and
# lab CMD --completion-helper, which prints its option table), so they
# never disagree with it. Installed by make install; or, from a checkout:
#   source lab/lab-completion.bash

_lab_words()
{
	local key=$1
	shift
	local var="_lab_cache_${key//[^a-zA-Z0-9]/_}"
	if [[ -z ${!var+set} ]]; then
		printf -v "$var" '%s' "$("$@" 2>/dev/null)"
	fi
	printf '%s' "${!var}"
}

_lab()
{
	local cur=${COMP_WORDS[COMP_CWORD]} lab=${COMP_WORDS[0]} cmd=${COMP_WORDS[1]}

	COMPREPLY=()
	if ((COMP_CWORD == 1)) || [[ $cmd == help && COMP_CWORD -eq 2 ]]; then
		COMPREPLY=($(compgen -W "$(_lab_words commands "$lab" --list-commands)" -- "$cur"))
		return
	fi
	case $cur in
	-*)
		COMPREPLY=($(compgen -W "$(_lab_words "$cmd" "$lab" "$cmd" --completion-helper)" \
			-- "$cur"))
		;;
	*)
		compopt -o default 2>/dev/null
		;;
	esac
}

complete -F _lab lab
