/*
 * procage profiles: the profiles shipped with procage (the library reads
 * and applies them: procage_profiles_dir, procage_profile_read), and the
 * command's reading of one, each line given to --profile's expansion as the
 * flag of its name.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_profiles_dir(char *out, size_t size)
{
	return procage_profiles_dir(out, size, NULL);
}

struct line_adapter {
	int (*add)(void *ctx, const char *option, const char *value);
	void *ctx;
};

static int line_adapt(void *ctx, const char *key, const char *value, struct procage_error *err)
{
	struct line_adapter *a = ctx;
	(void)err; /* the library names the line and strerror of the code */
	return a->add(a->ctx, key, value);
}

int cli_profile_read(const char *name, int (*add)(void *ctx, const char *option, const char *value),
		     void *ctx, char *why, size_t why_size)
{
	struct line_adapter adapter = { add, ctx };
	struct procage_error err = { 0 };
	int rc = procage_profile_read(name, line_adapt, &adapter, &err);
	if (rc != 0)
		snprintf(why, why_size, "%s", err.message);
	return rc;
}

/* The first comment line, without its '#': what the profile is for. */
static void profile_describe(const char *path, char *out, size_t size)
{
	char line[512];
	FILE *f = fopen(path, "re");
	out[0] = '\0';
	while (f && fgets(line, sizeof line, f))
		if (line[0] == '#') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, size, "%s", line + 1 + (line[1] == ' '));
			break;
		}
	if (f)
		fclose(f);
}

int cli_profiles_list(bool json)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], about[512];
	char *names[256];
	size_t n = 0;
	if (cli_profiles_dir(dir, sizeof dir) != 0) {
		fprintf(stderr, "procage: no profile directory next to this procage\n");
		return EXIT_PROCAGE_FAILED;
	}
	struct dirent **entries = NULL;
	int found = scandir(dir, &entries, NULL, alphasort);
	for (int i = 0; i < found; i++) {
		size_t len = strlen(entries[i]->d_name);
		if (n < 256 && len > 8 && strcmp(entries[i]->d_name + len - 8, ".profile") == 0 &&
		    (names[n] = strndup(entries[i]->d_name, len - 8)))
			n++; /* scandir's alphasort: listed by name */
		free(entries[i]);
	}
	free(entries);
	if (json)
		fputs("{\"profiles\":[", stdout);
	else
		printf("profiles (%s; use with --profile NAME):\n", dir);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s.profile", dir, names[i]);
		profile_describe(path, about, sizeof about);
		if (json) {
			fputs(i ? ",{\"name\":" : "{\"name\":", stdout);
			json_write_string(stdout, names[i]);
			fputs(",\"description\":", stdout);
			json_write_string(stdout, about);
			fputc('}', stdout);
		} else {
			printf("  %-8s %s\n", names[i], about);
		}
		free(names[i]);
	}
	if (json)
		fputs("]}\n", stdout);
	return 0;
}

int cli_profiles_help(void)
{
	int rc = cli_help("profiles");
	return rc != 0 ? rc : cli_profiles_list(false);
}

/* procage profiles [--json]: the profiles shipped with procage. */
int cmd_profiles(int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (cli_help_wanted(argv[i]))
			return cli_profiles_help();
		else if (strcmp(argv[i], "--json") == 0)
			json = true;
		else
			return cli_usage_error("profiles: unknown option '%s'", argv[i]);
	}
	return cli_profiles_list(json);
}
