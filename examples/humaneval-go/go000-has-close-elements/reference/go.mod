module example.com/humaneval/has_close_elements

go 1.22
