/* lib/redact.c: the secrets of an address masked, the rest kept as it was. */
#include <string.h>

#include "redact.h"
#include "strbuf.h"
#include "tap.h"

static const char *redact(const char *text, enum url_redact_flags flags)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	url_redact(&sb, text, flags);
	return sb.buf;
}

int main(void)
{
	static const struct {
		const char *in, *want, *name;
	} cases[] = {
		{ "smtp://lab:hunter2@mail.example.org:587", "smtp://***@mail.example.org:587",
		  "user and password of the userinfo" },
		{ "https://ghp_T0KEN@git.example.org/linux.git", "https://***@git.example.org/linux.git",
		  "a token given as the user" },
		{ "http://u:p@w@lava.example.org/", "http://***@lava.example.org/",
		  "an @ in the password: the last one ends the userinfo" },
		{ "http://lava.example.org/scheduler/job/7", "http://lava.example.org/scheduler/job/7",
		  "an address without secrets is kept" },
		{ "https://h.example/hook?token=abc&x=1", "https://h.example/hook?token=***&x=1",
		  "token=" },
		{ "https://h.example/?access_token=a&API_KEY=b;Sig=c&page=2&password=d",
		  "https://h.example/?access_token=***&API_KEY=***;Sig=***&page=2&password=***",
		  "access_token, api_key in capitals, sig after ;, password; page kept" },
		{ "https://s3.example/b/o?X-Amz-Signature=f00&X-Amz-Credential=ak",
		  "https://s3.example/b/o?X-Amz-Signature=***&X-Amz-Credential=***",
		  "a signed address's signature and credential" },
		{ "https://h.example/cb#access_token=zz&state=1", "https://h.example/cb#access_token=***&state=1",
		  "parameters of the fragment" },
		{ "https://h.example/?token", "https://h.example/?token", "a name without a value" },
		{ "cannot fetch 'https://u:pw@h.example/r.git': 401 from http://other/?key=k.",
		  "cannot fetch 'https://***@h.example/r.git': 401 from http://other/?key=***",
		  "addresses inside a message, the words around them kept (a full stop may be a "
		  "secret's: masked)" },
		{ "no address here: a://", "no address here: a://", "a scheme with nothing after" },
		{ "://u:p@host", "://u:p@host", "no scheme: not an address" },
		{ "", "", "empty" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(redact(cases[i].in, 0), cases[i].want, cases[i].name);
	is_str(redact("https://hooks.example.com/services/T0/B0/S3CRET?x=1", URL_REDACT_PATH),
	       "https://hooks.example.com/***", "URL_REDACT_PATH: the path is the secret");
	is_str(redact("https://u:p@hooks.example.com", URL_REDACT_PATH), "https://***@hooks.example.com",
	       "URL_REDACT_PATH without a path");
	{
		const char *plain = "http://lava.example.org/";

		ok(url_redacted(plain) == plain, "url_redacted: nothing masked, the text itself");
		is_str(url_redacted("x http://a:b@c/"), "x http://***@c/", "url_redacted masks");
		ok(url_redacted(NULL) == NULL, "url_redacted(NULL)");
	}
	return done_testing();
}
