/*
 * Why exec said "No such file or directory" of a file that exists: the
 * kernel reports ENOENT also when the interpreter a script names on its
 * "#!" line, or the dynamic loader an ELF program names (PT_INTERP), is
 * missing. The hint names that file, and says whether it is missing on
 * the host or only out of the cage's sight.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/text_escape.h"

/* The file exec ran: name as given (with a '/'), else the first match in $PATH. */
static bool command_path(const char *name, const char *cwd, char *out, size_t size)
{
	if (strchr(name, '/')) {
		int n = name[0] == '/' || !cwd ? snprintf(out, size, "%s", name)
					       : snprintf(out, size, "%s/%s", cwd, name);
		return n > 0 && (size_t)n < size;
	}
	const char *search = getenv("PATH");
	for (const char *dir = search ? search : "/usr/local/bin:/usr/bin:/bin";; dir++) {
		const char *end = strchrnul(dir, ':');
		int n = snprintf(out, size, "%.*s/%s", (int)(end - dir), dir, name);
		if (n > 0 && (size_t)n < size && access(out, X_OK) == 0)
			return true;
		if (!*end)
			return false;
		dir = end;
	}
}

/* The interpreter of a "#!" line: its first word. */
static bool script_interpreter(const char *head, size_t len, char *out, size_t size)
{
	if (len < 3 || head[0] != '#' || head[1] != '!')
		return false;
	size_t i = 2, n = 0;
	while (i < len && (head[i] == ' ' || head[i] == '\t'))
		i++;
	while (i < len && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' && n + 1 < size)
		out[n++] = head[i++];
	out[n] = '\0';
	return n > 0;
}

/* The PT_INTERP of a 64-bit or 32-bit ELF file, read from fd. */
static bool elf_interpreter(int fd, const unsigned char *head, size_t len, char *out, size_t size)
{
	if (len < EI_NIDENT || memcmp(head, ELFMAG, SELFMAG) != 0)
		return false;
	bool is64 = head[EI_CLASS] == ELFCLASS64;
	uint64_t phoff, offset = 0, filesz = 0;
	unsigned phnum, phentsize;
	if (is64 && len >= sizeof(Elf64_Ehdr)) {
		const Elf64_Ehdr *e = (const Elf64_Ehdr *)head;
		phoff = e->e_phoff, phnum = e->e_phnum, phentsize = e->e_phentsize;
	} else if (!is64 && len >= sizeof(Elf32_Ehdr)) {
		const Elf32_Ehdr *e = (const Elf32_Ehdr *)head;
		phoff = e->e_phoff, phnum = e->e_phnum, phentsize = e->e_phentsize;
	} else {
		return false;
	}
	for (unsigned i = 0; i < phnum && i < 256; i++) {
		unsigned char ph[sizeof(Elf64_Phdr)];
		if (phentsize > sizeof ph ||
		    pread(fd, ph, phentsize, (off_t)(phoff + (uint64_t)i * phentsize)) != phentsize)
			return false;
		uint32_t type = is64 ? ((Elf64_Phdr *)ph)->p_type : ((Elf32_Phdr *)ph)->p_type;
		if (type != PT_INTERP)
			continue;
		offset = is64 ? ((Elf64_Phdr *)ph)->p_offset : ((Elf32_Phdr *)ph)->p_offset;
		filesz = is64 ? ((Elf64_Phdr *)ph)->p_filesz : ((Elf32_Phdr *)ph)->p_filesz;
		break;
	}
	if (!filesz || filesz >= size)
		return false;
	ssize_t n = pread(fd, out, filesz, (off_t)offset);
	if (n <= 0)
		return false;
	out[n] = '\0';
	out[strnlen(out, (size_t)n)] = '\0';
	return out[0] != '\0';
}

bool cli_exec_hint(const char *command, const char *cwd, const struct procage_error *err,
		   bool caged, char *hint, size_t size)
{
	char path[PATH_MAX], interp[PATH_MAX];
	unsigned char head[512];
	if (err->step != PROCAGE_STEP_EXEC || err->sys_errno != ENOENT || !command ||
	    !command_path(command, cwd, path, sizeof path))
		return false;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return false; /* the command itself is missing: the message says so */
	/* Only a regular file's first bytes: reading a device could do something. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	ssize_t len = read(fd, head, sizeof head);
	bool script =
	    len > 0 && script_interpreter((const char *)head, (size_t)len, interp, sizeof interp);
	bool elf =
	    !script && len > 0 && elf_interpreter(fd, head, (size_t)len, interp, sizeof interp);
	close(fd);
	if (!script && !elf)
		return false;
	bool exists = stat(interp, &st) == 0;
	/* A run may have written the #! line: the name as a shell reads it back. */
	char shown[PATH_MAX * 8 + 12];
	escape_shell_word(shown, sizeof shown, interp);
	/* In the cage (procage exec) missing and out of sight look the same. */
	if (caged)
		snprintf(hint, size,
			 "%s is a %s %s %s, which the cage does not show: it does not exist, or "
			 "lies outside the grants (--read)",
			 command, script ? "script" : "program",
			 script ? "whose #! line names the interpreter"
				: "whose ELF interpreter (dynamic loader) is",
			 shown);
	else if (script)
		snprintf(hint, size,
			 "%s is a script whose #! line names the interpreter %s, which %s", command,
			 shown,
			 exists ? "exists on this host but not inside the cage: grant it (--read)"
				: "does not exist");
	else
		snprintf(hint, size, "%s is a program whose ELF interpreter (dynamic loader) %s %s",
			 command, shown,
			 exists ? "exists on this host but not inside the cage: grant it (--read)"
				: "does not exist: it was built for another system, or its C "
				  "library is not installed");
	return true;
}
