/*
 * Configuration that follows the user's habits:
 *
 *   - the user's file, $XDG_CONFIG_HOME/procage/config.json (else
 *     ~/.config/procage/config.json): {"defaults": [FLAGS...],
 *     "profiles": {"NAME": [FLAGS...]}}, the defaults put before the
 *     command line's flags, the profiles named with --profile NAME. The
 *     directory ~/.config/procage is read-only in every cage (trust-handoff
 *     class), so no run changes the next run's configuration;
 *   - a project's file, .procage.json in the working directory:
 *     {"flags": [FLAGS...]}, put after the user's defaults. It lies where
 *     runs write, so it is used only once the user trusts it (procage
 *     trust): its SHA-256 is recorded in the user's configuration directory
 *     ("trusted", one "HASH PATH" a line). A file changed since (by a run or
 *     anyone) is refused, never used silently; an untrusted one is left out,
 *     and procage says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/json.h"

#define CONFIG_FILE_MAX (1u << 20)

char *cli_home_expand(const char *value)
{
	const char *home = getenv("HOME");
	char *out = NULL;
	if (strncmp(value, "~/", 2) != 0 && strcmp(value, "~") != 0)
		return strdup(value);
	if (!home || home[0] != '/')
		return NULL;
	if (asprintf(&out, "%s%s", strcmp(home, "/") == 0 ? "" : home, value + 1) < 0)
		return NULL;
	return out;
}

int cli_config_dir(char *out, size_t size)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		return snprintf(out, size, "%s/procage", xdg) < (int)size ? 0 : -ENAMETOOLONG;
	if (home && home[0] == '/')
		return snprintf(out, size, "%s/.config/procage", home) < (int)size ? 0
										   : -ENAMETOOLONG;
	return -ENOENT;
}

/* The whole file, read without following a link on its last component; NULL with errno. */
static char *file_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *text = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_FILE_MAX) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	size_t n = 0;
	for (ssize_t got = 1; text && got > 0 && n < (size_t)st.st_size; n += (size_t)got)
		if ((got = read(fd, text + n, (size_t)st.st_size - n)) < 0)
			got = 0;
	close(fd);
	if (text)
		text[n] = '\0';
	*len = n;
	return text;
}

/* An array of strings: true, or false with why said. */
static bool strings_array(const struct json_value *v, const char *path, const char *what, char *why,
			  size_t size)
{
	bool ok = v && v->type == JSON_ARRAY;
	for (size_t i = 0; ok && i < v->u.array.count; i++)
		ok = v->u.array.items[i]->type == JSON_STRING;
	if (!ok)
		snprintf(why, size,
			 "%s:%u:%u: %s must be an array of strings (flags such as "
			 "\"--net\", \"proxy\")",
			 path, v ? v->line : 1, v ? v->column : 1, what);
	return ok;
}

static int user_config_check(const struct json_value *root, const char *path, char *why,
			     size_t size)
{
	if (root->type != JSON_OBJECT) {
		snprintf(why, size,
			 "%s:%u:%u: expected an object with \"defaults\" and "
			 "\"profiles\"",
			 path, root->line, root->column);
		return -EINVAL;
	}
	for (size_t i = 0; i < root->u.object.count; i++) {
		const struct json_member *m = &root->u.object.members[i];
		const struct json_value *v = m->value;
		if (strcmp(m->key, "defaults") == 0) {
			if (!strings_array(v, path, "\"defaults\"", why, size))
				return -EINVAL;
		} else if (strcmp(m->key, "profiles") == 0 && v->type == JSON_OBJECT) {
			for (size_t j = 0; j < v->u.object.count; j++)
				if (!strings_array(v->u.object.members[j].value, path, "a profile",
						   why, size))
					return -EINVAL;
		} else {
			snprintf(why, size,
				 "%s:%u:%u: unknown key \"%s\" (known: \"defaults\", an "
				 "array of flags; \"profiles\", an object of them)",
				 path, m->line, m->column, m->key);
			return -EINVAL;
		}
	}
	return 0;
}

static int json_file_load(const char *path, struct json_value **out, char *why, size_t size)
{
	size_t len = 0;
	struct json_error e = {0};
	char *text = file_read(path, &len);
	*out = NULL;
	if (!text && errno == ENOENT)
		return 0;
	if (!text) {
		snprintf(why, size, "%s: %s", path, strerror(errno));
		return -EINVAL;
	}
	int rc = json_parse(text, len, out, &e);
	free(text);
	if (rc != 0)
		snprintf(why, size, "%s:%u:%u: %s", path, e.line, e.column, e.message);
	return rc;
}

/* The hash recorded for path in the trust file: true with it in hash. */
static bool trusted_hash(const char *trust_file, const char *path, char hash[65])
{
	char line[PATH_MAX + 80];
	FILE *f = fopen(trust_file, "re");
	bool found = false;
	while (f && !found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) > 65 && line[64] == ' ' && strcmp(line + 65, path) == 0) {
			memcpy(hash, line, 64);
			hash[64] = '\0';
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * The project file of the working directory: 0 with c->project set when
 * it is trusted, 0 with a note when it is not, or -EPERM with why when it
 * changed since it was trusted.
 */
static int project_load(struct cli_config *c, bool json, char *why, size_t size)
{
	char cwd[PATH_MAX], dir[PATH_MAX], trust_file[PATH_MAX + 16], hash[65], recorded[65];
	size_t len = 0;
	if (!getcwd(cwd, sizeof cwd) ||
	    snprintf(c->project_path, sizeof c->project_path, "%s/.procage.json",
		     strcmp(cwd, "/") == 0 ? "" : cwd) >= (int)sizeof c->project_path)
		return 0;
	char *text = file_read(c->project_path, &len);
	if (!text && errno == ENOENT)
		return 0;
	if (!text) {
		snprintf(why, size, "%s: %s", c->project_path, strerror(errno));
		return -EINVAL;
	}
	cli_sha256_hex(text, len, hash);
	bool known =
	    cli_config_dir(dir, sizeof dir) == 0 &&
	    snprintf(trust_file, sizeof trust_file, "%s/trusted", dir) < (int)sizeof trust_file &&
	    trusted_hash(trust_file, c->project_path, recorded);
	if (!known) {
		cli_note(json,
			 "%s is not trusted, so it is not used; review it, then 'procage trust' "
			 "to use it",
			 c->project_path);
	} else if (strcmp(recorded, hash) != 0) {
		snprintf(why, size,
			 "%s changed since you trusted it (a run or someone else rewrote it; "
			 "sha256 %.12s..., trusted %.12s...): it is not used; review it, then "
			 "'procage trust' to use it, or --no-config to run without it",
			 c->project_path, hash, recorded);
		free(text);
		return -EPERM;
	} else {
		struct json_error e = {0};
		int rc = json_parse(text, len, &c->project, &e);
		const struct json_value *flags =
		    rc == 0 ? json_object_get(c->project, "flags") : NULL;
		if (rc != 0)
			snprintf(why, size, "%s:%u:%u: %s", c->project_path, e.line, e.column,
				 e.message);
		else if (c->project->type != JSON_OBJECT || c->project->u.object.count != 1 ||
			 !flags)
			snprintf(why, size, "%s: expected {\"flags\": [FLAGS...]}",
				 c->project_path);
		else if (strings_array(flags, c->project_path, "\"flags\"", why, size))
			c->project_flags = flags;
		free(text);
		return c->project_flags ? 0 : -EINVAL;
	}
	free(text);
	return 0;
}

int cli_config_load(struct cli_config *c, bool json, char *why, size_t size)
{
	char dir[PATH_MAX];
	memset(c, 0, sizeof *c);
	if (cli_config_dir(dir, sizeof dir) == 0 &&
	    snprintf(c->user_path, sizeof c->user_path, "%s/config.json", dir) <
		(int)sizeof c->user_path) {
		int rc = json_file_load(c->user_path, &c->user, why, size);
		if (rc == 0 && c->user)
			rc = user_config_check(c->user, c->user_path, why, size);
		if (rc != 0)
			return rc;
		c->defaults = c->user ? json_object_get(c->user, "defaults") : NULL;
	}
	return project_load(c, json, why, size);
}

const struct json_value *cli_config_profile(const struct cli_config *c, const char *name)
{
	const struct json_value *profiles = c->user ? json_object_get(c->user, "profiles") : NULL;
	return profiles ? json_object_get(profiles, name) : NULL;
}

void cli_config_free(struct cli_config *c)
{
	json_free(c->user);
	json_free(c->project);
	c->user = c->project = NULL;
}

/* Replace or add the line for path in the trust file, by a new file renamed over it. */
static int trust_record(const char *dir, const char *path, const char *hash)
{
	char file[PATH_MAX + 16], tmp[PATH_MAX + 32], line[PATH_MAX + 80];
	snprintf(file, sizeof file, "%s/trusted", dir);
	snprintf(tmp, sizeof tmp, "%s/.trusted.%d", dir, (int)getpid());
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out)
		return fd >= 0 ? (close(fd), -ENOMEM) : -errno;
	FILE *in = fopen(file, "re");
	while (in && fgets(line, sizeof line, in)) {
		size_t n = strcspn(line, "\n");
		line[n] = '\0';
		if (!(n > 65 && line[64] == ' ' && strcmp(line + 65, path) == 0))
			fprintf(out, "%s\n", line);
	}
	if (in)
		fclose(in);
	fprintf(out, "%s %s\n", hash, path);
	if (fclose(out) != 0 || rename(tmp, file) != 0) {
		int e = errno;
		unlink(tmp);
		return -e;
	}
	return 0;
}

/* procage trust [FILE]: record the project file's hash as trusted. */
int cmd_trust(int argc, char **argv)
{
	char dir[PATH_MAX], canonical[PATH_MAX], hash[65], why[PATH_MAX + 200];
	const char *file = ".procage.json";
	size_t len = 0;
	struct json_value *root = NULL;
	struct json_error e = {0};
	if (argc > 2)
		return cli_usage_error("trust: one file at a time");
	if (argc == 2 && cli_help_wanted(argv[1]))
		return cli_help("trust");
	if (argc == 2)
		file = argv[1];
	if (!realpath(file, canonical)) {
		fprintf(stderr, "procage: trust: %s: %s\n", file, strerror(errno));
		return EXIT_PROCAGE_FAILED;
	}
	char *text = file_read(canonical, &len);
	if (!text) {
		fprintf(stderr, "procage: trust: %s: %s\n", canonical, strerror(errno));
		return EXIT_PROCAGE_FAILED;
	}
	cli_sha256_hex(text, len, hash);
	int rc = json_parse(text, len, &root, &e);
	free(text);
	const struct json_value *flags = rc == 0 ? json_object_get(root, "flags") : NULL;
	if (rc != 0 || !flags || root->type != JSON_OBJECT || root->u.object.count != 1 ||
	    !strings_array(flags, canonical, "\"flags\"", why, sizeof why)) {
		if (rc != 0)
			fprintf(stderr, "procage: trust: %s:%u:%u: %s\n", canonical, e.line,
				e.column, e.message);
		else
			fprintf(stderr, "procage: trust: %s: expected {\"flags\": [FLAGS...]}\n",
				canonical);
		json_free(root);
		return EXIT_PROCAGE_FAILED;
	}
	json_free(root);
	if (cli_config_dir(dir, sizeof dir) != 0 ||
	    (rc = trust_record(dir, canonical, hash)) != 0) {
		fprintf(stderr, "procage: trust: cannot record it in %s/trusted: %s\n", dir,
			strerror(rc ? -rc : ENOENT));
		return EXIT_PROCAGE_FAILED;
	}
	printf("procage: trusted %s (sha256 %s)\n", canonical, hash);
	return 0;
}
