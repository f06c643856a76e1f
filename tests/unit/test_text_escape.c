/* Unit tests: text the cage chose, made safe to print (text_escape.c). */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "common/text_escape.h"

static void expect(const char *in, const char *want, const char *what)
{
	char out[256];
	escape_quoted(out, sizeof out, in);
	if (!tap_ok(strcmp(out, want) == 0, "%s", what))
		tap_diag("got %s, want %s", out, want);
}

static void expect_shell(const char *in, const char *want, const char *what)
{
	char out[256];
	escape_shell(out, sizeof out, in);
	if (!tap_ok(strcmp(out, want) == 0, "shell: %s", what))
		tap_diag("got %s, want %s", out, want);
}

static void expect_word(const char *in, const char *want, const char *what)
{
	char out[256];
	escape_shell_word(out, sizeof out, in);
	if (!tap_ok(strcmp(out, want) == 0, "shell word: %s", what))
		tap_diag("got %s, want %s", out, want);
}

/*
 * What a shell reads back from the quoted text: sh -c 'printf %s WORD'
 * prints the word's value (exact: only where the shell has $''), and
 * nothing else runs: each hostile name's command substitution would make
 * the file "pwned" in dir, the shell's working directory.
 */
static void expect_shell_reads_back(const char *dir, const char *shell, const char *in,
				    bool exact, const char *what)
{
	char word[512], script[700], got[512] = "";
	escape_shell_word(word, sizeof word, in);
	snprintf(script, sizeof script, "printf %%s %s", word);
	int pipefd[2];
	if (pipe(pipefd) != 0) {
		tap_ok(false, "%s: %s: pipe", shell, what);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(126);
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execl(shell, shell, "-c", script, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < sizeof got && (r = read(pipefd[0], got + n, sizeof got - 1 - n)) > 0)
		n += (size_t)r;
	got[n] = '\0';
	close(pipefd[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	char pwned[4200];
	snprintf(pwned, sizeof pwned, "%s/pwned", dir);
	bool ran = access(pwned, F_OK) == 0;
	unlink(pwned);
	if (!tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 && !ran &&
			    (!exact || strcmp(got, in) == 0),
		    "%s reads %s back %s, running nothing", shell, what,
		    exact ? "as the text" : "as literal text"))
		tap_diag("script %s printed \"%s\" (status %d)%s", script, got, status,
			 ran ? "; the command substitution ran" : "");
}

int main(void)
{
	expect("plain/name.txt", "\"plain/name.txt\"", "plain text is quoted as it is");
	expect("a\nb", "\"a\\x0ab\"", "a newline is escaped: one finding, one line");
	expect("q\"uote\\", "\"q\\x22uote\\x5c\"", "quotes and backslashes cannot end the name");
	expect("\x1b[2J", "\"\\x1b[2J\"", "an escape sequence is escaped");
	expect("\xc2\x9b"
	       "31m",
	       "\"\\xc2\\x9b31m\"", "a C1 control (CSI as UTF-8) is escaped");
	expect("caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"", "valid UTF-8 is kept");
	expect("\xff\xc3", "\"\\xff\\xc3\"", "bytes that are not UTF-8 are escaped");
	expect("\xe0\x80\xaf", "\"\\xe0\\x80\\xaf\"", "an overlong form is escaped");
	char small[16];
	escape_quoted(small, sizeof small, "a-rather-long-name");
	tap_ok(strlen(small) < sizeof small && strstr(small, "...\""), "a cut name says so: %s",
	       small);

	expect_shell("plain/name.txt", "'plain/name.txt'", "plain text in single quotes");
	expect_shell("/x/$(id) `id`; a|b", "'/x/$(id) `id`; a|b'",
		     "expansions stay inside single quotes");
	expect_shell("a\"b", "'a\"b'", "a double quote is literal in single quotes");
	expect_shell("it's", "'it'\\''s'", "a single quote stands between the quoted runs");
	expect_shell("a\\b", "'a'\\\\'b'", "so does a backslash (fish reads it inside quotes)");
	expect_shell("a\nb\x1b[2J", "'a'$'\\x0a''b'$'\\x1b''[2J'", "controls are $'\\xNN'");
	expect_shell("'!$(id)", "\\''!$(id)'", "a name may begin with a single quote");
	expect_shell("\xff", "$'\\xff'", "a byte that is not UTF-8 is $'\\xNN'");
	expect_shell("", "''", "an empty name is ''");
	expect_shell("caf\xc3\xa9", "'caf\xc3\xa9'", "valid UTF-8 is kept");
	escape_shell(small, sizeof small, "a-rather-long-name");
	tap_ok(strlen(small) < sizeof small && strstr(small, "...'"), "shell: a cut name says so: %s",
	       small);
	bool fits = true;
	for (size_t size = 12; size < 80; size++) {
		char out[81];
		memset(out, 'Z', sizeof out);
		size_t n = escape_shell(out, size, "a'\x1b\\b c\x01\xc3\xa9$(x)'\x7f");
		fits &= n == strlen(out) && n < size && out[n - 1] == '\'' && out[size] == 'Z';
	}
	tap_ok(fits, "shell: cut at every size, the text ends in a quote and stays within it");
	expect_word("/home/u/.npm", "/home/u/.npm", "a plain path stays bare");
	expect_word("", "''", "an empty word is quoted");
	expect_word("/a b", "'/a b'", "a space is quoted");
	expect_word("[::1]", "'[::1]'", "glob characters are quoted");
	expect_word("~/x", "'~/x'", "a tilde is quoted (the caller writes ~ itself)");
	static const char *const round[] = {"/plain", "/a b", "it's", "a\\b", "'", "$(x)`y`;z"};
	bool back = true;
	for (size_t i = 0; i < sizeof round / sizeof *round; i++) {
		char word[256], text[256];
		size_t n = escape_shell_word(word, sizeof word, round[i]);
		back &= escape_shell_read(word, n, text, sizeof text) && strcmp(text, round[i]) == 0;
	}
	tap_ok(back, "shell: each word reads back as its name");
	char word[256], text[256];
	size_t n = escape_shell_word(word, sizeof word, "a\x1b" "b");
	tap_ok(!escape_shell_read(word, n, text, sizeof text), "shell: a word with $'\\xNN' is not read back");
	tap_ok(!escape_shell_read("'open", 5, text, sizeof text), "shell: an unclosed quote is not read back");
	tap_ok(!escape_shell_read("'long'", 6, text, 4), "shell: nor a name longer than the room");
	n = escape_shell(word, 16, "/a rather long name");
	tap_ok(!escape_shell_read(word, n, text, sizeof text), "shell: nor a word cut short: %s", word);
	static const char *const hostile[] = {
		"/tmp/q $(touch pwned)", "a;touch pwned", "`touch pwned`", "a'b$(touch pwned)'",
		"x\ny$(touch pwned)", "!!$(touch pwned)", "\\'$(touch pwned)", "a\x1b[2Jb",
	};
	static const char *const shells[] = {"/bin/sh", "/bin/bash"};
	char dir[] = "/tmp/procage-unit-shell-XXXXXX";
	if (!tap_ok(mkdtemp(dir) != NULL, "a directory for the shells to run in"))
		return tap_done();
	for (size_t s = 0; s < sizeof shells / sizeof *shells; s++)
		for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
			char what[64];
			snprintf(what, sizeof what, "hostile name %zu", i);
			/* $'' is bash's and zsh's; dash reads it as "$" and literal text. */
			bool exact = strcmp(shells[s], "/bin/sh") != 0 ||
				     !strpbrk(hostile[i], "\n\x1b");
			expect_shell_reads_back(dir, shells[s], hostile[i], exact, what);
		}
	tap_ok(rmdir(dir) == 0, "the shells left nothing behind");
	return tap_done();
}
