# fish completion for procage(1). Installed as
# $(datadir)/fish/vendor_completions.d/procage.fish.

function __procage_verb_is
    set -l words (commandline -opc)
    test (count $words) -ge 2; and contains -- $words[2] $argv
end

complete -c procage -f
complete -c procage -n __fish_use_subcommand -a run -d 'run COMMAND in a cage'
complete -c procage -n __fish_use_subcommand -a exec -d 'become COMMAND in a cage'
complete -c procage -n __fish_use_subcommand -a learn -d 'the policy COMMAND needs'
complete -c procage -n __fish_use_subcommand -a facts -d "what this host's kernel offers"
complete -c procage -n __fish_use_subcommand -a check -d 'validate a policy against this host'
complete -c procage -n __fish_use_subcommand -a fit -d 'what a policy becomes on this host'
complete -c procage -n __fish_use_subcommand -a profiles -d 'the tool profiles for --profile'
complete -c procage -n __fish_use_subcommand -a trust -d "trust a project's .procage.json"
complete -c procage -n __fish_use_subcommand -a changes -d 'the kept change sets (--changes overlay)'
complete -c procage -n __fish_use_subcommand -a help -d "the overview, or a verb's help"
complete -c procage -n __fish_use_subcommand -l version -d 'print the version'
complete -c procage -n __fish_use_subcommand -l help -d 'print the overview'

# learn takes the options of run.
set -l cage 'run exec learn'
complete -c procage -n "__procage_verb_is $cage" -l policy -r -F -d 'read the policy from a JSON file'
complete -c procage -n "__procage_verb_is $cage" -l trust-policy -d 'confirm a changed policy file'
complete -c procage -n "__procage_verb_is $cage" -l write-new -r -a '(__fish_complete_directories)' -d 'grant writing DIR, made when missing'
complete -c procage -n "__procage_verb_is $cage" -l profile -x -a '(procage profiles 2>/dev/null | string match -r "^  [a-z0-9_-]+" | string trim)' -d 'add a tool profile'
complete -c procage -n "__procage_verb_is $cage" -l no-config -d 'leave out config.json and .procage.json'
complete -c procage -n "__procage_verb_is $cage" -l dry-run -d 'print the effective policy, run nothing'
complete -c procage -n "__procage_verb_is $cage" -l read -r -F -d 'grant reading PATH'
complete -c procage -n "__procage_verb_is $cage" -l write -r -F -d 'grant reading and writing PATH'
complete -c procage -n "__procage_verb_is $cage" -l protect -r -F -d 'keep PATH read-only'
complete -c procage -n "__procage_verb_is $cage" -l hide -r -F -d 'deny every access to PATH'
complete -c procage -n "__procage_verb_is $cage" -l socket -r -F -d 'connect to the Unix socket PATH'
complete -c procage -n "__procage_verb_is $cage" -l net -x -a 'off on proxy loopback' -d 'network access'
complete -c procage -n "__procage_verb_is $cage" -l allow-host -x -d 'a host the proxy reaches'
complete -c procage -n "__procage_verb_is $cage" -l allow-ssh -x -d 'a host ssh reaches through the proxy'
complete -c procage -n "__procage_verb_is $cage" -l publish -x -d 'a port of the run the host reaches'
complete -c procage -n "__procage_verb_is $cage" -l ask -d 'ask on the terminal before a host off the list'
complete -c procage -n "__procage_verb_is $cage" -l ask-timeout -x -d 'seconds to answer --ask'
complete -c procage -n "__procage_verb_is $cage" -l report -d 'list the refused system calls'
complete -c procage -n "__procage_verb_is $cage" -l report-json -r -F -d 'the refused calls as JSON lines'
complete -c procage -n "__procage_verb_is $cage" -l env -x -a '(set -xn)' -d 'pass a variable that looks secret'
complete -c procage -n "__procage_verb_is $cage" -l setenv -x -d 'set NAME=VALUE'
complete -c procage -n "__procage_verb_is $cage" -l no-private-tmp -d 'no TMPDIR of the run'
complete -c procage -n "__procage_verb_is $cage" -l changes -x -a 'overlay in-place' -d 'where the writes land'
complete -c procage -n "__procage_verb_is $cage" -l apply -x -a 'safe all none' -d 'how a change set is applied'
complete -c procage -n "__procage_verb_is $cage" -l limit -x -a 'as= core= cpu= data= fsize= locks= memlock= msgqueue= nice= nofile= nproc= rss= rtprio= rttime= sigpending= stack= memory= pids=' -d 'a resource limit'
complete -c procage -n "__procage_verb_is $cage" -l accept -x -a 'spawn-snapshot entry-grants proc-other-processes listing-shows-hidden-names host-loopback' -d 'accept an approximation'
complete -c procage -n "__procage_verb_is $cage" -l waive -x -a 'secrets trust-handoff persistence service-handoff container-engines process-access workspace-config' -d 'waive a hard-deny class'
complete -c procage -n "__procage_verb_is $cage" -l hardlinks -x -a 'refuse report' -d 'the hard-link check'
complete -c procage -n "__procage_verb_is $cage" -l hardlink-exempt -r -F -d 'a store never rewritten in place'
complete -c procage -n "__procage_verb_is run learn" -l audit -d 'list the trust-handoff files changed'
complete -c procage -n "__procage_verb_is run learn" -l explain -x -a 'on all off' -d 'explain file and network refusals after the run'
complete -c procage -n "__procage_verb_is run learn" -l on-handoff-change -x -a 'report fail' -d 'what a trust-handoff change does'
complete -c procage -n "__procage_verb_is $cage" -l lifetime -x -a 'session tree' -d 'whether setsid is refused'
complete -c procage -n "__procage_verb_is $cage" -l terminal -x -a inherit -d "share procage's terminal"
complete -c procage -n "__procage_verb_is run learn" -l timeout -x -d 'end the run after SECONDS'
complete -c procage -n "__procage_verb_is run learn" -l grace -x -d 'seconds between SIGTERM and SIGKILL'
complete -c procage -n "__procage_verb_is $cage" -l cwd -x -a '(__fish_complete_directories)' -d 'run the command in DIR'
complete -c procage -n "__procage_verb_is $cage facts check fit profiles" -l json -d 'JSON output'
complete -c procage -n "__procage_verb_is $cage facts check fit profiles trust" -s h -l help -d "the verb's help"
complete -c procage -n "__procage_verb_is fit" -l policy -r -F -d 'the policy to fit'
complete -c procage -n "__procage_verb_is check" -F -d 'a policy file'
complete -c procage -n "__procage_verb_is trust" -F -d 'a project file'
complete -c procage -n "__procage_verb_is help" -a 'run exec learn facts check fit profiles trust help'
