#include "bpf_sim.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Room for the index in the messages; tests are single-threaded. */
static char why_buf[160];

static int fail(const char **why, size_t pc, const char *what)
{
	snprintf(why_buf, sizeof why_buf, "instruction %zu: %s", pc, what);
	if (why)
		*why = why_buf;
	return -1;
}

/* seccomp_data is read in aligned 32-bit words, never past its end. */
static bool load_offset_ok(uint32_t k)
{
	return k % 4 == 0 && k <= sizeof(struct seccomp_data) - 4;
}

static bool jump_ok(size_t pc, size_t len, uint32_t offset)
{
	return offset < len && pc + 1 + offset < len;
}

/* The opcodes seccomp accepts (kernel/seccomp.c, seccomp_check_filter). */
static bool opcode_ok(uint16_t code)
{
	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_IMM:
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
	case BPF_MISC | BPF_TAX:
	case BPF_MISC | BPF_TXA:
	case BPF_ALU | BPF_NEG:
	case BPF_RET | BPF_K:
	case BPF_RET | BPF_A:
	case BPF_JMP | BPF_JA:
		return true;
	}
	uint16_t op = BPF_OP(code);
	if (BPF_CLASS(code) == BPF_ALU && (BPF_SRC(code) == BPF_K || BPF_SRC(code) == BPF_X))
		return op == BPF_ADD || op == BPF_SUB || op == BPF_MUL || op == BPF_DIV ||
		       op == BPF_AND || op == BPF_OR || op == BPF_XOR ||
		       op == BPF_LSH || op == BPF_RSH;
	if (BPF_CLASS(code) == BPF_JMP && (BPF_SRC(code) == BPF_K || BPF_SRC(code) == BPF_X))
		return op == BPF_JEQ || op == BPF_JGT || op == BPF_JGE || op == BPF_JSET;
	return false;
}

static int check_one(const struct sock_filter *prog, size_t len, size_t pc, const char **why)
{
	const struct sock_filter *in = &prog[pc];
	if (!opcode_ok(in->code))
		return fail(why, pc, "opcode seccomp does not allow");
	switch (BPF_CLASS(in->code)) {
	case BPF_LD:
		if (in->code == (BPF_LD | BPF_W | BPF_ABS) && !load_offset_ok(in->k))
			return fail(why, pc, "load outside struct seccomp_data or unaligned");
		/* fall through */
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_MEM || BPF_CLASS(in->code) == BPF_ST ||
		    BPF_CLASS(in->code) == BPF_STX)
			if (in->k >= BPF_MEMWORDS)
				return fail(why, pc, "scratch memory index out of range");
		break;
	case BPF_ALU:
		if (BPF_SRC(in->code) == BPF_K && BPF_OP(in->code) == BPF_DIV && in->k == 0)
			return fail(why, pc, "division by constant zero");
		if (BPF_SRC(in->code) == BPF_K &&
		    (BPF_OP(in->code) == BPF_LSH || BPF_OP(in->code) == BPF_RSH) && in->k >= 32)
			return fail(why, pc, "shift by 32 or more");
		break;
	case BPF_JMP:
		if (BPF_OP(in->code) == BPF_JA && !jump_ok(pc, len, in->k))
			return fail(why, pc, "jump out of the program");
		if (BPF_OP(in->code) != BPF_JA &&
		    (!jump_ok(pc, len, in->jt) || !jump_ok(pc, len, in->jf)))
			return fail(why, pc, "jump out of the program");
		break;
	}
	return 0;
}

int bpf_sim_check(const struct sock_filter *prog, size_t len, const char **why)
{
	if (!prog || len == 0 || len > BPF_MAXINSNS)
		return fail(why, 0, "empty program or more than BPF_MAXINSNS instructions");
	for (size_t pc = 0; pc < len; pc++)
		if (check_one(prog, len, pc, why) < 0)
			return -1;
	if (BPF_CLASS(prog[len - 1].code) != BPF_RET)
		return fail(why, len - 1, "program does not end with a return");
	return 0;
}

static uint32_t alu(uint16_t op, uint32_t a, uint32_t operand)
{
	switch (op) {
	case BPF_ADD:
		return a + operand;
	case BPF_SUB:
		return a - operand;
	case BPF_MUL:
		return a * operand;
	case BPF_DIV:
		return a / operand;
	case BPF_AND:
		return a & operand;
	case BPF_OR:
		return a | operand;
	case BPF_XOR:
		return a ^ operand;
	case BPF_LSH:
		return a << operand;
	case BPF_RSH:
		return a >> operand;
	}
	return 0; /* not reached: bpf_sim_check refused other ops */
}

static bool condition(uint16_t op, uint32_t a, uint32_t operand)
{
	switch (op) {
	case BPF_JEQ:
		return a == operand;
	case BPF_JGT:
		return a > operand;
	case BPF_JGE:
		return a >= operand;
	case BPF_JSET:
		return (a & operand) != 0;
	}
	return false;
}

/* The machine: accumulator, index register, scratch words and which are set. */
struct machine {
	uint32_t a, x, mem[BPF_MEMWORDS];
	bool mem_set[BPF_MEMWORDS];
};

/* One non-return instruction; *pc moves to the next one. */
static int step(const struct sock_filter *in, const uint32_t *words, struct machine *m,
		size_t *pc, const char **why)
{
	size_t at = *pc;
	uint16_t code = in->code;
	*pc = at + 1;
	switch (BPF_CLASS(code)) {
	case BPF_LD:
	case BPF_LDX: {
		uint32_t v = 0;
		if (BPF_MODE(code) == BPF_ABS)
			v = words[in->k / 4];
		else if (BPF_MODE(code) == BPF_LEN)
			v = sizeof(struct seccomp_data);
		else if (BPF_MODE(code) == BPF_IMM)
			v = in->k;
		else if (!m->mem_set[in->k])
			return fail(why, at, "scratch memory read before it was written");
		else
			v = m->mem[in->k];
		*(BPF_CLASS(code) == BPF_LD ? &m->a : &m->x) = v;
		return 0;
	}
	case BPF_ST:
	case BPF_STX:
		m->mem[in->k] = BPF_CLASS(code) == BPF_ST ? m->a : m->x;
		m->mem_set[in->k] = true;
		return 0;
	case BPF_MISC:
		if (BPF_MISCOP(code) == BPF_TAX)
			m->x = m->a;
		else
			m->a = m->x;
		return 0;
	case BPF_ALU: {
		uint32_t operand = BPF_SRC(code) == BPF_X ? m->x : in->k;
		if (BPF_OP(code) == BPF_NEG) {
			m->a = -m->a;
			return 0;
		}
		if (BPF_OP(code) == BPF_DIV && operand == 0)
			return 1; /* the kernel ends the program, returning 0 */
		if ((BPF_OP(code) == BPF_LSH || BPF_OP(code) == BPF_RSH) && operand >= 32)
			return fail(why, at, "shift by X of 32 or more");
		m->a = alu(BPF_OP(code), m->a, operand);
		return 0;
	}
	case BPF_JMP:
		if (BPF_OP(code) == BPF_JA)
			*pc += in->k;
		else
			*pc += condition(BPF_OP(code), m->a, BPF_SRC(code) == BPF_X ? m->x : in->k)
				       ? in->jt
				       : in->jf;
		return 0;
	}
	return fail(why, at, "unknown instruction class");
}

static int run(const struct sock_filter *prog, size_t len, const struct seccomp_data *data,
	       uint32_t *action, const char **why, bool check_each)
{
	if (!prog || len == 0 || len > BPF_MAXINSNS)
		return fail(why, 0, "empty program or more than BPF_MAXINSNS instructions");
	/* seccomp_data as the 32-bit words the program loads (host order). */
	uint32_t words[sizeof(struct seccomp_data) / 4];
	_Static_assert(sizeof(struct seccomp_data) % 4 == 0, "seccomp_data is whole words");
	memcpy(words, data, sizeof words);

	struct machine m = { 0 };
	size_t pc = 0;
	/* Jumps only go forward, so this ends within len steps. */
	while (pc < len) {
		const struct sock_filter *in = &prog[pc];
		if (check_each && check_one(prog, len, pc, why) < 0)
			return -1;
		if (BPF_CLASS(in->code) == BPF_RET) {
			*action = BPF_RVAL(in->code) == BPF_A ? m.a : in->k;
			return 0;
		}
		int rc = step(in, words, &m, &pc, why);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			*action = 0;
			return 0;
		}
	}
	return fail(why, len, "ran past the end of the program");
}

int bpf_sim_run(const struct sock_filter *prog, size_t len, const struct seccomp_data *data,
		uint32_t *action, const char **why)
{
	/* Each instruction is checked as it is reached. */
	return run(prog, len, data, action, why, true);
}

int bpf_sim_run_checked(const struct sock_filter *prog, size_t len,
			const struct seccomp_data *data, uint32_t *action, const char **why)
{
	/*
	 * The unit tests run each program hundreds of thousands of times;
	 * checking its instructions again at every step was a third of
	 * their time.
	 */
	return run(prog, len, data, action, why, false);
}
