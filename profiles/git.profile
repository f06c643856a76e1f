# git: GitHub, GitLab and Bitbucket for --net proxy (HTTPS)
#
# git: the common forges for --net proxy (clone and fetch over HTTPS). Hooks
# and config of repositories stay read-only with the trust-handoff class; SSH
# keys stay hidden (use HTTPS).
allow-host github.com
allow-host codeload.github.com
allow-host gitlab.com
allow-host bitbucket.org
