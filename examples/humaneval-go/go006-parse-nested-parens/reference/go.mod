module example.com/humaneval/parse_nested_parens

go 1.22
