#include "core/scenario/share_link.hpp"

#include "tests/common/scenarios.hpp"

#include <doctest/doctest.h>

using namespace shardscope;

TEST_CASE("share link: base64url follows RFC 4648's test vectors, with - and _ for + and /") {
    // RFC 4648 section 10, padding dropped as section 5 allows for URLs.
    const std::pair<const char*, const char*> vectors[] = {{"", ""},           {"f", "Zg"},         {"fo", "Zm8"},
                                                           {"foo", "Zm9v"},    {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"},
                                                           {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, coded] : vectors) {
        CAPTURE(plain);
        CHECK(base64url_encode(plain) == coded);
        CHECK(base64url_decode(coded) == std::optional<std::string>(plain));
    }
    // 0xFB 0xFF is "+/8=" in standard base64: 111110 111111 111100 -> 62, 63, 60.
    CHECK(base64url_encode("\xFB\xFF") == "-_8");
    CHECK(base64url_decode("-_8") == std::optional<std::string>("\xFB\xFF"));
    CHECK(base64url_decode("Zm9v=") == std::optional<std::string>("foo"));  // a tool's padding is tolerated
    CHECK_FALSE(base64url_decode("Zm+v"));  // '+' belongs to the other alphabet
    CHECK_FALSE(base64url_decode("Zm9vY"));  // five characters carry no whole byte in their last one
}

TEST_CASE("share link: a lesson, its step and a scenario come back as they went in") {
    Scenario s = test::small_dense();
    s.parallel.tp = 2;
    s.parallel.dp_replicate /= 2;
    REQUIRE(validate_scenario(s).empty());
    const std::string url = share_link("https://example.org/shardscope/", {"pipeline-parallel", 6, s});
    CHECK(url.rfind("https://example.org/shardscope/?lesson=pipeline-parallel&step=6#s=1.", 0) == 0);
    CHECK(url.find(' ') == std::string::npos);
    std::string error;
    const auto back = parse_share_link(url, error);
    REQUIRE_MESSAGE(back, error);
    CHECK(back->lesson == "pipeline-parallel");
    CHECK(back->step == 6);
    REQUIRE(back->scenario);
    CHECK(*back->scenario == s);
    // The payload is the scenario's JSON without whitespace: decoding it gives that text exactly.
    const auto payload = base64url_decode(url.substr(url.find("#s=1.") + 5));
    REQUIRE(payload);
    CHECK(payload->front() == '{');
    CHECK(payload->find('\n') == std::string::npos);
    CHECK(parse_scenario(*payload).ok());
}

TEST_CASE("share link: a lesson alone, a scenario alone, and a host's own parameters") {
    std::string error;
    const auto lesson = parse_share_link("http://localhost:8000/?lesson=data-parallel", error);
    REQUIRE(lesson);
    CHECK(lesson->lesson == "data-parallel");
    CHECK(lesson->step == 0);
    CHECK_FALSE(lesson->scenario);
    CHECK(share_link("", {"data-parallel", 0, std::nullopt}) == "?lesson=data-parallel");
    const auto tracked = parse_share_link("https://x.org/?utm_source=mail&lesson=a%2Db&step=2", error);
    REQUIRE(tracked);
    CHECK(tracked->lesson == "a-b");
    CHECK(tracked->step == 2);
    const std::string scenario_only = share_link("", {"", 0, test::small_dense()});
    CHECK(scenario_only.rfind("#s=1.", 0) == 0);
    const auto back = parse_share_link(scenario_only, error);
    REQUIRE(back);
    CHECK(back->lesson.empty());
    CHECK(*back->scenario == test::small_dense());
}

TEST_CASE("share link: each broken part is named with its rule") {
    const auto error_of = [](const std::string& url) {
        std::string error;
        CHECK_FALSE(parse_share_link(url, error));
        return error;
    };
    CHECK(error_of("?lesson=a&step=0") == "link: step: \"0\" is not a whole number from 1");
    CHECK(error_of("?lesson=a&step=2x") == "link: step: \"2x\" is not a whole number from 1");
    CHECK(error_of("?step=2") == "link: step: given without a lesson");
    CHECK(error_of("?lesson=a%2") == "link: lesson: a broken %-escape");
    CHECK(error_of("#s=2.e30") == "link: scenario encoding \"2\" is not one this version reads (1)");
    CHECK(error_of("#view=3") == "link: the fragment must be s=VERSION.SCENARIO, not \"view=3\"");
    CHECK(error_of("#s=1.e30+") == "link: scenario: not base64url (A-Z a-z 0-9 - _)");
    // {"a":1} decodes but is no scenario: the loader's own message follows.
    const std::string not_a_scenario = error_of("#s=1." + base64url_encode("{\"a\":1}"));
    CHECK(not_a_scenario.rfind("link: scenario: ", 0) == 0);
    CHECK(not_a_scenario.size() > std::string("link: scenario: ").size());
}

TEST_CASE("share link: what reads as a link and what as a file name") {
    CHECK(looks_like_share_link("https://example.org/?lesson=a"));
    CHECK(looks_like_share_link("http://localhost:8000/#s=1.abc"));
    CHECK(looks_like_share_link("file:///tmp/index.html?lesson=a"));
    CHECK(looks_like_share_link("?lesson=a"));
    CHECK(looks_like_share_link("#s=1.abc"));
    CHECK_FALSE(looks_like_share_link("examples/llama3-8b-64xh100.json"));
    CHECK_FALSE(looks_like_share_link("-"));
    CHECK_FALSE(looks_like_share_link("https.json"));
}
