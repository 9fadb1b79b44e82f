/* kernel_name.c: a kernel's base name (KPROF_NAMES=base): its demangled name without the return type,
 * template arguments and parameters; and the number of those parameters. */
#include <stdlib.h>
#include <string.h>
#include "kernel_name.h"

/* The length of a shift or comparison operator at s[i] inside a template argument (a '<' or '>' that
 * opens or closes nothing), 0 for a bracket: libiberty prints "(a)<(b)", "(a)<<(b)", "(a)<=(b)",
 * "(a)>>(b)" and "(a)>=(b)" bare, a greater-than in parentheses ("((a)>(b))"), and closing brackets that
 * follow each other apart ("> >"). */
static size_t cmp_operator_len(const char *s, size_t i)
{
    if (i == 0 || s[i - 1] != ')')
        return 0;
    if (s[i] == '<') {
        size_t j = i + 1;
        if (s[j] == '<' || s[j] == '=')
            j++;
        return s[j] == '(' ? j - i : 0;
    }
    return s[i] == '>' && (s[i + 1] == '>' || s[i + 1] == '=') && s[i + 2] == '(' ? 2 : 0;
}

/* The length of the bracketed group that opens at s[0] ('<', '(', '[' or '{'), its closing bracket
 * included; 0 when it is not closed.  Brackets nest; inside parentheses and square brackets '<' and '>'
 * are operators (a template argument's expression, "(1)>(2)"), as are the bare shifts and comparisons
 * of cmp_operator_len, and the '>' of "->" closes nothing.
 * stack: room for strlen(s) bytes.
 * commas (NULL: not wanted): s opens a parameter list, a '<' directly inside it opens a type's template
 * arguments ("Blob<16, 2>"), and *commas counts the commas there.  group_len: without commas. */
static size_t group_scan(const char *s, char *stack, int *commas)
{
    size_t depth = 0;
    for (size_t i = 0; s[i]; i++) {
        char c = s[i], top = depth ? stack[depth - 1] : 0;
        switch (c) {
        case '(':
        case '[':
        case '{':
            stack[depth++] = c;
            break;
        case '<':
        case '>':
            if (cmp_operator_len(s, i)) {
                i += cmp_operator_len(s, i) - 1;
            } else if (c == '<') {
                if ((commas && depth == 1) || (top != '(' && top != '['))
                    stack[depth++] = c;
            } else if (top == '<' && !(i > 0 && s[i - 1] == '-')) {
                depth--;
            }
            break;
        case ')':
        case ']':
        case '}': {
            char open = c == ')' ? '(' : c == ']' ? '[' : '{';
            while (depth && stack[depth - 1] != open) /* a '<' left open inside: a less-than */
                depth--;
            if (!depth)
                return 0;
            depth--;
            break;
        }
        case ',':
            if (commas && depth == 1)
                ++*commas;
            break;
        default:
            break;
        }
        if (depth == 0)
            return i + 1;
    }
    return 0;
}

static size_t group_len(const char *s, char *stack)
{
    return group_scan(s, stack, NULL);
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           (unsigned char)c >= 0x80;
}

/* The length of an operator's name after the word "operator" at s (s[0] not an identifier character):
 * "()", "[]", "\"\"" (a literal operator, its suffix follows), " new[]", " delete", a conversion's
 * " unsigned long" (up to the parameter list), or a run of operator characters ("<<=", "->*").  0 when it
 * does not parse. */
static size_t operator_len(const char *s, char *stack)
{
    if ((s[0] == '(' && s[1] == ')') || (s[0] == '[' && s[1] == ']') || (s[0] == '"' && s[1] == '"'))
        return 2;
    if (s[0] == ' ') {
        size_t i = 1;
        while (s[i] && s[i] != '(') {
            size_t g = s[i] == '<' || s[i] == '[' ? group_len(s + i, stack) : 1;
            if (!g)
                return 0;
            i += g;
        }
        return i;
    }
    size_t i = 0;
    while (s[i] && strchr("+-*/%^&|~!=<>,.", s[i]))
        i++;
    return i;
}

/* Keeps the next n bytes of name at *i: appends them to out at *len, and moves both on. */
static void keep(char *out, size_t *len, const char *name, size_t *i, size_t n)
{
    memcpy(out + *len, name + *i, n);
    *len += n;
    *i += n;
}

/* Reads a demangled name as kprof_kernel_base_name does: the base name into out (*outlen bytes, no NUL),
 * and answers where its parameter list begins (name[i] == '('), or -1 when it has none or does not parse.
 * out and stack: room for strlen(name) + 1 bytes each. */
static long scan(const char *name, char *out, size_t *outlen, char *stack)
{
    size_t n = strlen(name);
    size_t len = 0;  /* of out */
    size_t comp = 0; /* where the name's last component starts in out */
    size_t i = 0;
    int params = 0;  /* 1 once the function's parameter list is reached */
    while (i < n && !params) {
        char c = name[i];
        if (len - comp == 8 && memcmp(out + comp, "operator", 8) == 0 && !ident_char(c)) {
            size_t k = operator_len(name + i, stack);
            if (!k)
                goto whole;
            keep(out, &len, name, &i, k);
            if (name[i] == ' ' && name[i + 1] == '<') /* "operator< <int>(...)": template arguments follow */
                i++;
            continue;
        }
        switch (c) {
        case ' ': /* what came before was the return type: the name starts after it */
            len = comp = 0;
            i++;
            continue;
        case ':':
            if (name[i + 1] == ':') {
                keep(out, &len, name, &i, 2);
                comp = len;
                continue;
            }
            break;
        case '<': /* template arguments, an ABI tag ("[abi:cxx11]"): left out */
        case '[': {
            size_t g = group_len(name + i, stack);
            if (!g)
                goto whole;
            i += g;
            continue;
        }
        case '{': { /* an unnamed entity ("{lambda(int)#1}", "{unnamed type#1}"): kept */
            size_t g = group_len(name + i, stack);
            if (!g)
                goto whole;
            keep(out, &len, name, &i, g);
            continue;
        }
        case '(': {
            static const char anon[] = "(anonymous namespace)";
            int anon_ns = strncmp(name + i, anon, sizeof anon - 1) == 0;
            size_t g = anon_ns ? sizeof anon - 1 : group_len(name + i, stack);
            if (!g)
                goto whole;
            if (anon_ns || (len > comp && out[len - 1] == '\'')) { /* or 'lambda'(int) */
                keep(out, &len, name, &i, g);
                continue;
            }
            /* Parameters, and a member function's qualifiers after them. */
            size_t j = i + g;
            for (;;) {
                if (strncmp(name + j, " const", 6) == 0)
                    j += 6;
                else if (strncmp(name + j, " volatile", 9) == 0)
                    j += 9;
                else if (strncmp(name + j, " &&", 3) == 0)
                    j += 3;
                else if (strncmp(name + j, " &", 2) == 0)
                    j += 2;
                else
                    break;
            }
            if (name[j] == ':' && name[j + 1] == ':') { /* an entity local to this function: go on */
                i = j;
                continue;
            }
            params = 1;
            continue;
        }
        default:
            break;
        }
        out[len++] = c;
        i++;
    }
    *outlen = len;
    return params && len > 0 ? (long)i : -1;
whole:
    return -1;
}

char *kprof_kernel_base_name(const char *name)
{
    size_t n = strlen(name), len = 0;
    char *out = malloc(n + 1), *stack = malloc(n + 1);
    long at = out && stack ? scan(name, out, &len, stack) : -1;
    free(stack);
    if (at < 0) {
        free(out);
        return strdup(name);
    }
    out[len] = '\0';
    return out;
}

int kprof_kernel_param_count(const char *name)
{
    size_t n = strlen(name), len = 0;
    char *out = malloc(n + 1), *stack = malloc(n + 1);
    long at = out && stack ? scan(name, out, &len, stack) : -1;
    int commas = 0;
    size_t g = at >= 0 ? group_scan(name + at, stack, &commas) : 0;
    free(out);
    free(stack);
    return g == 2 ? 0 /* "()" */ : g > 2 ? commas + 1 : -1;
}
